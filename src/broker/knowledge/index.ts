/**
 * The knowledge layer (docs/knowledge.md): what worlds say of themselves
 * (`/world.md`), the org's publishing standard on the hub, and the checks
 * built on them. Pure rules and parsers plus two small services over the
 * shared conditional document cache.
 */
import type { WorldGateway } from '../worlds/gateway.ts';
import { PublishingStandard, type StandardLog } from './publishing-standard.ts';
import { WorldDescriptors } from './world-descriptors.ts';
import { WorldDocumentCache } from './world-document-cache.ts';
import { DoctorRuns } from './doctor/index.ts';

export {
  PublishingStandard,
  standardPaths,
  type StandardPart,
  type PolicyVerdict,
} from './publishing-standard.ts';
export { WorldDescriptors, type DescriptorState } from './world-descriptors.ts';
export { WorldDocumentCache, type DocumentState, type WorldDocument } from './world-document-cache.ts';
export { parseWorldDescriptor, worldDescriptorPath, type WorldDescriptor } from './world-descriptor.ts';
export { parsePolicy, policyPath, PolicyFormatError, type Policy, type PolicyRule, type Severity } from './policy.ts';
export { checkSubmission, type Violation, type Submission, type Scope } from './policy-check.ts';
export { findSecrets, secretShapes } from './secret-shapes.ts';
export { checkFailureReport } from './check-failure-report.ts';

export type KnowledgeOptions = {
  gateway: WorldGateway;
  /** The hub world that publishes the org's standard (broker config `hub`; default `root`, src/broker/hub-world.ts). */
  hub?: string;
  /** How long a read of world.md or the standard is trusted before a conditional re-check (default 30 s). */
  revalidateMs?: number;
  log?: StandardLog;
  /** Called when a check of a world document fails (the world did not answer); the copy held, if any, is kept. */
  onCheckFailed?: (world: string, path: string, reason: string) => void;
};

export function createKnowledge(options: KnowledgeOptions) {
  const documents = new WorldDocumentCache({
    gateway: options.gateway,
    ...(options.revalidateMs === undefined ? {} : { revalidateMs: options.revalidateMs }),
    ...(options.onCheckFailed === undefined ? {} : { onCheckFailed: options.onCheckFailed }),
  });
  return {
    documents,
    descriptors: new WorldDescriptors(documents),
    /** mark_doctor's finished reports (served to later pages) and its runs in flight. */
    doctorRuns: new DoctorRuns(),
    standard: new PublishingStandard({
      documents,
      ...(options.hub === undefined ? {} : { hub: options.hub }),
      ...(options.log === undefined ? {} : { log: options.log }),
    }),
  };
}
