import { readFile } from 'node:fs/promises';

/** The version in this package's package.json (one level above src/ and dist/). */
export async function packageVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}
