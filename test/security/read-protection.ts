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
  const probe = await stack.connect();
  await protectInTokensFile(stack.worlds.get(world)!.tokensFile, pattern, `world ${world}`, async () => {
    const answer = await probe.callTool({ name: 'mark_fetch', arguments: { url: probeUrl } });
    return /unauthorized/.test(resultText(answer));
  });
}

/**
 * Adds the read token covering `pattern` to a running world's `tokensFile`,
 * and waits until `refused` says the world applied it (it reloads the file on
 * change, src/world/auth/token-source.ts). `world` names it in the error if it
 * never does.
 */
export async function protectInTokensFile(
  tokensFile: string,
  pattern: string,
  world: string,
  refused: () => Promise<boolean>,
): Promise<void> {
  await appendFile(
    tokensFile,
    `\n[tokens.private-readers]\nhash = "${hashToken(readerToken)}"\npaths = ["${pattern}"]\noperations = ["read"]\n`,
  );
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await refused()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${world} never applied the read token on ${pattern}`);
}
