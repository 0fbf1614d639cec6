/**
 * A markdown body of distinct links to made-up documents (`[](big-0.md)
 * [](big-1.md) …`) up to `chars` characters: the link graph's flood, about
 * 121,000 links in a 1 MiB document. Shared by test/security/graph-memory.test.ts
 * and test/security/federation-link-flood.test.ts.
 */
export function linkFlood(prefix: string, chars: number): string {
  let body = `# ${prefix}\n\n`;
  for (let i = 0; body.length < chars; i++) body += `[](${prefix}-${i.toString(36)}.md) `;
  return `${body}\n`;
}
