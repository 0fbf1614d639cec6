import { appendFile } from 'node:fs/promises';
import { hashToken } from '../../src/protocol/token.ts';
import { resultText, type Stack } from '../e2e/stack-fixture.ts';

/** The read token the protected tree is given; nobody calling through the broker holds it. */
const readerToken = 'reader-token-for-the-private-tree';

/**
 * Adds a read token covering `pattern` to `world`'s tokens.toml, so the world
 * refuses anonymous reads there, and waits until a broker read of `probeUrl`
 * (a URL under `pattern`) answers `unauthorized`.
 */
export async function protect(
  stack: Stack,
  pattern: string,
  { world = 'team-a', probeUrl = 'mark://team-a/private/victim.md' }: { world?: string; probeUrl?: string } = {},
): Promise<void> {
  await appendFile(
    stack.worlds.get(world)!.tokensFile,
    `\n[tokens.private-readers]\nhash = "${hashToken(readerToken)}"\npaths = ["${pattern}"]\noperations = ["read"]\n`,
  );
  const probe = await stack.connect();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answer = await probe.callTool({ name: 'mark_fetch', arguments: { url: probeUrl } });
    if (/unauthorized/.test(resultText(answer))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`world ${world} never applied the read token on ${pattern}`);
}
