/**
 * The whole pipeline as one schema: shape (schema.ts), then the cross-field
 * rules (rules.ts), then derived defaults (resolve.ts). `BrokerConfig` is its
 * output type, so the type and the validation cannot drift apart.
 */
import type { z } from 'zod';
import { firstRuleViolation } from './rules.ts';
import { resolveDerived } from './resolve.ts';
import { brokerConfigShape } from './schema.ts';

export const brokerConfigSchema = brokerConfigShape
  .superRefine((config, ctx) => {
    const violation = firstRuleViolation(config);
    if (violation !== null)
      ctx.addIssue({ code: 'custom', path: violation.path, message: violation.message, params: { conflict: true } });
  })
  .transform(resolveDerived);

export type BrokerConfig = z.infer<typeof brokerConfigSchema>;
export type BrokerWorldConfig = BrokerConfig['worlds'][number];
