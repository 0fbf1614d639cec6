import { chmod, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { generateToken, hashToken } from '../protocol/token.ts';

/**
 * The development publisher token: one raw token for every local world, kept in
 * `data/dev-token` (mode 0600) so restarts keep working. Development only: a
 * real world gets one token per writer, minted with `demarkus-broker world token`.
 */
export async function devPublisherToken(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const token = generateToken();
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return token;
}

export function devTokensToml(rawToken: string): string {
  return [
    '# Development tokens written by `npm start`. Not for production.',
    '[tokens.dev-publisher]',
    `hash = "${hashToken(rawToken)}"`,
    'paths = ["/**"]',
    'operations = ["publish"]',
    '',
  ].join('\n');
}
