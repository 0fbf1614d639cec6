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
 * Slack, bearer, OpenAI and Anthropic, GitLab, npm, Google OAuth, Azure: a
 * literal prefix, then a fixed count of key characters and nothing after
 * them, so the run is never read to its end), or starts at a literal that
 * cannot occur inside the run it then reads (private key, GitHub, Stripe,
 * Slack webhook, basic auth), or is pinned to the start of its run (JWT) or
 * to the `://` (password in a URL).
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
    // Anthropic `sk-ant-api03-`/`sk-ant-admin01-`, OpenAI project, service-account and admin keys, and
    // OpenAI's older `sk-` and 48 letters and digits. "sk-learn" is 5 letters, and prose never has 20.
    kind: 'an OpenAI or Anthropic API key',
    pattern: /\bsk-(?:(?:ant-(?:api|admin)\d{2}|proj|svcacct|admin)-[A-Za-z0-9_-]{20}|[A-Za-z0-9]{48}(?![A-Za-z0-9]))/,
  },
  { kind: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20}/ },
  // npm's granular and automation tokens: `npm_` and 36 letters and digits (npm_config_* names have a `_` early).
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}/ },
  {
    kind: 'a Slack webhook URL',
    pattern: /hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16}/,
  },
  { kind: 'a Google OAuth client secret', pattern: /\bGOCSPX-[A-Za-z0-9_-]{24}/ },
  // An Azure storage account (or Service Bus, Event Hubs) connection string's key: 40 characters of base64 and more.
  { kind: 'an Azure storage key', pattern: /\b(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40}/ },
  {
    // The header's name and scheme are case-insensitive (RFC 9110 §11.1); the credentials are base64 of
    // `user:password` (RFC 7617), so an ordinary word after "Basic" (all lower-case letters) is prose.
    kind: 'a basic auth header',
    pattern:
      /\b[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]:[ \t]*[Bb][Aa][Ss][Ii][Cc][ \t]+(?=[a-z]*[A-Z0-9+/])[A-Za-z0-9+/]{8}/,
  },
  {
    kind: 'a password in a URL',
    // `scheme://user:password@host`, the scheme (RFC 3986 §3.1) at a word start and at most 32 characters;
    // the user may be empty (`redis://:password@host`). A password written `${NAME}` is a reference to
    // the environment, not a password. Read from each word start, an unbounded scheme ran to the end of
    // every run of scheme characters, quadratic on 'a.' repeated; so the pattern starts at the `://` and
    // looks back for the scheme. The user and the password stop at `/`, so neither runs into the next `://`.
    pattern: /:\/\/(?<=\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/:@]*:(?!\$\{)[^\s/@]+@[^\s/@]/i,
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
