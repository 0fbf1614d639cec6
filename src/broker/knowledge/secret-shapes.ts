/**
 * Common credential shapes (the kinds secret scanners such as GitHub's
 * secret scanning look for): enough to stop the usual accident of pasting a
 * key into a document. A finding names the kind and the line, never the value.
 *
 * Every pattern runs on every line of every document published, appended or
 * read by mark_doctor, synchronously, so each must take time linear in the
 * line (test/security/document-scan-redos.test.ts). A backtracking engine
 * tries a pattern at every position, so what it reads from all those starts
 * must add up to O(line): an unbounded quantifier must not be entered from
 * many starts inside one run of the characters it accepts. Each pattern here
 * either reads a bounded number of characters from any start (AWS, Google,
 * Slack, bearer), or starts at a literal that cannot occur inside the run it
 * then reads (private key, GitHub, Stripe), or is pinned to the start of its
 * run (JWT) or to the `://` (password in a URL).
 */
export type SecretShape = { kind: string; pattern: RegExp };

export const secretShapes: readonly SecretShape[] = [
  { kind: 'a private key block', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/ },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'a Stripe live key', pattern: /\b[sr]k_live_[A-Za-z0-9]{16,}\b/ },
  {
    kind: 'a JSON Web Token',
    // `eyJ` at a word start, 8 or more base64url characters, `.eyJ`, 8 or more, `.`, 8 more. A run of
    // base64url characters holds a word start after every `-`, and scanning the run from each of them
    // is quadratic ('eyJ-' repeated). So the pattern starts only where the run starts, checks the
    // run's end once (the lookahead), then steps over `-`-joined parts to an `eyJ` start.
    pattern:
      /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8})(?:[A-Za-z0-9_]*-)*?eyJ[A-Za-z0-9_-]{8}/,
  },
  { kind: 'a bearer token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/i },
  {
    kind: 'a password in a URL',
    // `scheme://user:password@host`, the scheme (RFC 3986 §3.1) at a word start and at most 32 characters.
    // Read from each word start, an unbounded scheme ran to the end of every run of scheme characters,
    // quadratic on 'a.' repeated; so the pattern starts at the `://` and looks back for the scheme.
    pattern: /:\/\/(?<=\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/:@]+:[^\s/@]+@[^\s/@]/i,
  },
];

export type SecretFinding = { kind: string; line: number };

/** Every credential shape found, one finding per kind and line, in line order. */
export function findSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  text.split('\n').forEach((line, index) => {
    for (const shape of secretShapes)
      if (shape.pattern.test(line)) findings.push({ kind: shape.kind, line: index + 1 });
  });
  return findings;
}
