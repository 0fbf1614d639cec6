/**
 * Where the public spex benchmark lives. It ships in `shared/benchdata/spex`
 * beside the project checkout (/work/shared next to /work/main), but a bench run
 * from a git worktree (/work/wt/<name>) sits one directory deeper, so a fixed
 * `../../shared` from bench/ points nowhere. SPEX_BENCHDATA overrides; otherwise
 * every ancestor of this checkout is tried, nearest first.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const relative = join('shared', 'benchdata', 'spex');

export function spexDataDir(): string {
  const override = process.env.SPEX_BENCHDATA;
  if (override !== undefined && override !== '') {
    if (!existsSync(join(override, 'questions.json')))
      throw new Error(`SPEX_BENCHDATA=${override} has no questions.json: point it at the spex benchmark directory`);
    return resolve(override);
  }
  const tried: string[] = [];
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    tried.push(candidate);
    if (existsSync(join(candidate, 'questions.json'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `spex benchmark data not found (tried ${tried.join(', ')}); set SPEX_BENCHDATA to the directory holding questions.json`,
  );
}
