/**
 * Common credential shapes (the kinds secret scanners such as GitHub's
 * secret scanning look for): enough to stop the usual accident of pasting a
 * key into a document. A finding names the kind and the line, never the value.
 */
export type SecretShape = { kind: string; pattern: RegExp };

export const secretShapes: readonly SecretShape[] = [
  { kind: 'a private key block', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/ },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'a Stripe live key', pattern: /\b[sr]k_live_[A-Za-z0-9]{16,}\b/ },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'a bearer token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/i },
  { kind: 'a password in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@[^\s/@]/i },
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
