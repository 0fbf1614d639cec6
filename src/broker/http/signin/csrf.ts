/**
 * CSRF defence of the page forms (verification page, consent page): a random
 * secret in a SameSite=Strict cookie, and in each form an HMAC of it under
 * `server.cookieKey` (the signed double-submit pattern), checked in constant
 * time. Browser requests must also be same-origin when they say where they
 * come from (`Origin`, `Sec-Fetch-Site`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomSecret } from '../../auth/secrets.ts';

export class CsrfGuard {
  readonly #key: Buffer;
  readonly #origin: string;

  constructor(key: Buffer, publicOrigin: string) {
    if (key.length < 16) throw new RangeError('CSRF key must be at least 16 bytes');
    this.#key = key;
    this.#origin = publicOrigin;
  }

  newSecret(): string {
    return randomSecret(24);
  }

  tokenFor(secret: string): string {
    return createHmac('sha256', this.#key).update(`csrf:${secret}`).digest('base64url');
  }

  /**
   * Proof, for this browser's secret, that the device page named the program
   * behind `userCode` to it (RFC 8628 §5.4): the form carrying it is the
   * person's confirmation, so approving goes on to the IdP, and the lookup
   * that named the program was already charged to the user-code budget, so it
   * is not charged twice.
   */
  requesterShown(secret: string, userCode: string): string {
    return createHmac('sha256', this.#key).update(`device-requester-shown:${secret}:${userCode}`).digest('base64url');
  }

  isRequesterShown(secret: string | undefined, userCode: string, proof: string | undefined): boolean {
    if (secret === undefined || proof === undefined) return false;
    const expected = Buffer.from(this.requesterShown(secret, userCode));
    const given = Buffer.from(proof);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** True when the form token matches the cookie secret and the request is not cross-origin. */
  verify(input: {
    secret: string | undefined;
    token: string | undefined;
    origin: string | undefined;
    fetchSite: string | undefined;
  }): boolean {
    if (input.fetchSite !== undefined && input.fetchSite !== 'same-origin' && input.fetchSite !== 'none') return false;
    if (input.origin !== undefined && input.origin !== this.#origin) return false;
    if (input.secret === undefined || input.token === undefined) return false;
    const expected = Buffer.from(this.tokenFor(input.secret));
    const given = Buffer.from(input.token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
