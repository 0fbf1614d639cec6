/**
 * Bytes of the `/graph.md` table rows that belong to `world`, newline
 * included: its document rows (`| [mark://world/…](…) |`) and the rows of the
 * links its documents hold (`| mark://world/… |` in the From column). This is
 * the measure of a world's share of the federation's export
 * (src/broker/graph/federation/export-share.ts), read from the published text
 * rather than from the exporter's row functions, so that a test checks the
 * share against what was published.
 */
export function worldRowBytes(body: string, world: string): number {
  const documentRow = `| [mark://${world}/`;
  const linkRow = `| mark://${world}/`;
  let bytes = 0;
  for (const line of body.split('\n'))
    if (line.startsWith(documentRow) || line.startsWith(linkRow)) bytes += Buffer.byteLength(line) + 1;
  return bytes;
}
