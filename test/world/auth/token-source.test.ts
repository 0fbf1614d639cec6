import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashToken } from '../../../src/protocol/token.ts';
import { TokenSource } from '../../../src/world/auth/token-source.ts';
import { TokensFileError } from '../../../src/world/auth/tokens-file.ts';
import type { TokenSnapshot } from '../../../src/world/auth/token-snapshot.ts';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tokensFile(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tokens-'));
  dirs.push(dir);
  const file = path.join(dir, 'tokens.toml');
  await writeFile(file, text);
  return file;
}

function entry(label: string, secret: string): string {
  return `[tokens.${label}]\nhash = "${hashToken(secret)}"\npaths = ["/**"]\noperations = ["publish"]\n`;
}

/** Replace the file the way editors and deploy tools do: write beside it, then rename over it. */
async function replaceFile(file: string, text: string): Promise<void> {
  const temp = `${file}.new`;
  await writeFile(temp, text);
  await rename(temp, file);
}

/** Bounded wait for a condition the watcher or the poll will make true. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await sleep(25);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('TokenSource', () => {
  it('gives no snapshot when no tokens file is configured', async () => {
    const source = await TokenSource.open(null);
    assert.equal(source.snapshot(), null);
    source.close();
  });

  it('fails at start-up on a bad file, naming the problem', async () => {
    const file = await tokensFile('[tokens.broken]\npaths = ["/**"]\n');
    await assert.rejects(
      TokenSource.open(file),
      (err: unknown) => err instanceof TokensFileError && /token "broken" has empty hash/.test(err.message),
    );
  });

  it('fails at start-up on a missing file', async () => {
    const file = path.join(path.dirname(await tokensFile('')), 'absent.toml');
    await assert.rejects(TokenSource.open(file), TokensFileError);
  });

  for (const [how, options] of [
    ['fs.watch alone', { pollIntervalMs: 0 }],
    ['the stat poll alone', { fsWatch: false, pollIntervalMs: 50 }],
  ] as const) {
    it(`swaps in a new snapshot when the file changes, noticed by ${how}`, async () => {
      const file = await tokensFile(entry('first', 'one'));
      const source = await TokenSource.open(file, options);
      try {
        const before = source.snapshot();
        await replaceFile(file, entry('second', 'two'));
        await eventually(() => source.snapshot() !== before, 'the reloaded snapshot');
        assert.equal(source.snapshot()?.authorize('two', '/a.md', 'publish'), 'ok');
      } finally {
        source.close();
      }
    });
  }

  it('swaps in a new snapshot when the file changes', async () => {
    const file = await tokensFile(entry('first', 'one'));
    const source = await TokenSource.open(file, { pollIntervalMs: 50 });
    try {
      const before = source.snapshot();
      assert.equal(before?.authorize('one', '/a.md', 'publish'), 'ok');
      await replaceFile(file, entry('second', 'two'));
      await eventually(() => source.snapshot() !== before, 'the reloaded snapshot');
      assert.equal(source.snapshot()?.authorize('two', '/a.md', 'publish'), 'ok');
      assert.equal(source.snapshot()?.authorize('one', '/a.md', 'publish'), 'invalid-token');
      // The pinned snapshot a request holds does not change under it.
      assert.equal(before?.authorize('one', '/a.md', 'publish'), 'ok');
    } finally {
      source.close();
    }
  });

  it('keeps the previous snapshot and reports the error when a reload finds a bad file', async () => {
    const file = await tokensFile(entry('good', 'one'));
    const errors: Error[] = [];
    const source = await TokenSource.open(file, { pollIntervalMs: 50, onReloadError: (err) => errors.push(err) });
    try {
      const before = source.snapshot();
      await writeFile(file, '[tokens.bad]\npaths = ["/docs**"]\nhash = "sha256-00"\n');
      await eventually(() => errors.length > 0, 'the reload error');
      assert.ok(errors[0] instanceof TokensFileError);
      assert.equal(source.snapshot(), before);
      assert.equal(source.snapshot()?.authorize('one', '/a.md', 'publish'), 'ok');
    } finally {
      source.close();
    }
  });

  it('publishes nothing on an explicit reload of unchanged text, and reports each snapshot it publishes', async () => {
    const file = await tokensFile(entry('same', 'one'));
    const published: TokenSnapshot[] = [];
    const source = await TokenSource.open(file, { watch: false, onReload: (s) => published.push(s) });
    try {
      assert.equal(published.length, 1);
      assert.equal(await source.reload(), false);
      await writeFile(file, entry('same', 'other'));
      assert.equal(await source.reload(), true);
      assert.equal(published.length, 2);
      assert.equal(source.snapshot(), published[1]);
    } finally {
      source.close();
    }
  });
});
