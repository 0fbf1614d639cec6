import { randomInt } from 'node:crypto';

/**
 * RFC 8628 §6.1: the base-20 alphabet without vowels or look-alikes
 * (`BCDFGHJKLMNPQRSTVWXZ`), 8 characters ≈ 34.5 bits, shown `XXXX-XXXX`.
 * Input is case-insensitive and may omit the dash or add spaces.
 */
export const userCodeAlphabet = 'BCDFGHJKLMNPQRSTVWXZ';
export const userCodeLength = 8;

export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < userCodeLength; i++) code += userCodeAlphabet[randomInt(userCodeAlphabet.length)];
  return code;
}

/** `BCDFGHJK` → `BCDF-GHJK`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, in canonical form, or null when it cannot be a user code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]+/g, '');
  if (code.length !== userCodeLength) return null;
  for (const char of code) if (!userCodeAlphabet.includes(char)) return null;
  return code;
}
