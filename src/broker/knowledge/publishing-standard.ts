import { checkSubmission, type Scope, type Submission, type Violation } from './policy-check.ts';
import { parsePolicy, policyPath, type Policy } from './policy.ts';
import type { WorldDocument, WorldDocumentCache } from './world-document-cache.ts';
import { defaultHubWorld } from '../hub-world.ts';

/**
 * The org's publishing standard as published on the hub world: the policy the
 * broker enforces, and the template and style guide it serves to agents
 * (docs/knowledge.md). Read through the shared conditional cache, so a change
 * on the hub applies within one revalidation interval and costs one
 * `not-modified` answer per interval otherwise.
 */
export const standardPaths = {
  policy: policyPath,
  template: '/.well-known/demarkus/template.md',
  style: '/.well-known/demarkus/style.md',
} as const;
export type StandardPart = keyof typeof standardPaths;

const standardPathSet: ReadonlySet<string> = new Set(Object.values(standardPaths));

/**
 * Whether a document is part of the standard as the hub holds it: the only
 * documents no policy applies to, so a broken policy can always be fixed
 * through the broker. The same paths in any other world, and every other path
 * under `/.well-known/` or `/.demarkus/`, are ordinary documents. The broker's
 * generated state (`/graph.md`, `/index/`, `/.demarkus/crawl-state/`) needs no
 * exemption: the federation crawl writes it through the world gateway, never
 * through the policy gate that every caller's write passes (mark_publish,
 * mark_append, and the generated documents of mark_graph_publish and mark_index).
 */
export function isPublishingStandard(hub: string, world: string, path: string): boolean {
  return world === hub && standardPathSet.has(path);
}

export type StandardLog = { warn(fields: Record<string, unknown>, message: string): void };

/**
 * What the policy made of a write: `none` when no policy applies (none on the hub, or one that cannot
 * be read exactly), `checked` with its findings, or `unavailable` when the broker does not know the
 * policy (the hub never answered, or will not show it): the write is then refused, never let through unchecked
 * (docs/decisions.md, "deny on doubt"). `reason` is written for the caller.
 */
export type PolicyVerdict =
  | { kind: 'none' }
  | { kind: 'checked'; violations: Violation[]; policyUrl: string }
  | { kind: 'unavailable'; reason: string };

/** The policy as far as the broker knows it: in force, none, or not known (`reason` is written for the caller). */
export type PolicyState =
  | { kind: 'none' }
  | { kind: 'in-force'; policy: Policy }
  | { kind: 'unavailable'; reason: string };

export const policyUnreadable = 'the publishing policy could not be read from the hub; retry shortly';

export class PublishingStandard {
  readonly hub: string;
  readonly #documents: WorldDocumentCache;
  readonly #log: StandardLog | undefined;
  #parsed: { etag: string; body: string; policy: Policy | undefined } | undefined;

  constructor(options: { documents: WorldDocumentCache; hub?: string; log?: StandardLog }) {
    this.#documents = options.documents;
    this.hub = options.hub ?? defaultHubWorld;
    this.#log = options.log;
  }

  /** One part of the standard as the hub holds it, or undefined when the hub has none, hides it or cannot say. */
  async part(part: StandardPart): Promise<WorldDocument | undefined> {
    const state = await this.#documents.get(this.hub, standardPaths[part]);
    return state.kind === 'present' ? state.document : undefined;
  }

  /**
   * The policy as the hub holds it: `none` when there is none or the file cannot be read exactly,
   * `unavailable` when the broker does not know it. A reader that judges documents by it (the doctor)
   * must tell these apart: a policy not known is not "no policy" (docs/decisions.md, "deny on doubt").
   */
  async policyState(): Promise<PolicyState> {
    const state = await this.#documents.get(this.hub, standardPaths.policy);
    if (state.kind === 'absent') return { kind: 'none' };
    // Never read, and the hub did not answer: a copy held is used through an outage, but without one
    // the broker cannot tell "no policy" from "a policy it has not seen".
    if (state.kind === 'unknown') return { kind: 'unavailable', reason: policyUnreadable };
    // The hub will not show it without credentials, nor say whether it exists: not "no policy", which
    // would let every write through unchecked, but a refusal its owner can fix (docs/decisions.md).
    if (state.kind === 'protected') return { kind: 'unavailable', reason: this.#protectedReason() };
    const policy = this.#parse(state.document);
    return policy === undefined ? { kind: 'none' } : { kind: 'in-force', policy };
  }

  #protectedReason(): string {
    return (
      `the publishing policy (mark://${this.hub}${policyPath}) is read-protected on the hub, so the broker ` +
      'cannot read it and checks no write against it; its owner must make it readable without credentials'
    );
  }

  /** The policy of one version of policy.md, parsed once per version; undefined (logged once) when it cannot be read exactly. */
  #parse(document: WorldDocument): Policy | undefined {
    const held = this.#parsed;
    if (held !== undefined && held.etag === document.etag && held.body === document.body) return held.policy;
    let policy: Policy | undefined;
    try {
      policy = parsePolicy(document.body);
    } catch (error) {
      this.#log?.warn(
        { world: this.hub, path: policyPath, etag: document.etag, reason: (error as Error).message },
        'publishing policy ignored: it cannot be read, so no policy applies until it is fixed',
      );
    }
    this.#parsed = { etag: document.etag, body: document.body, policy };
    return policy;
  }

  /** Checks a write to `world` against the policy in force; only the standard on the hub is exempt. */
  async check(world: string, path: string, submission: Submission, scope: Scope): Promise<PolicyVerdict> {
    if (isPublishingStandard(this.hub, world, path)) return { kind: 'none' };
    const state = await this.policyState();
    if (state.kind !== 'in-force') return state;
    return {
      kind: 'checked',
      violations: checkSubmission(state.policy, submission, scope),
      policyUrl: `mark://${this.hub}${policyPath}`,
    };
  }
}
