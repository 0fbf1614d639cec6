/**
 * Child process for the crash test: opens the store at argv[2] and writes
 * without end, PUBLISH and APPEND mixed over a few documents, printing
 *
 *   ack <path> <version> <content-hash>
 *
 * on stdout after each write returns. The parent kills it with SIGKILL at a
 * random moment. The ack goes out with a synchronous write to fd 1, so a line
 * the parent reads was printed only after its write was acknowledged.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { writeSync } from 'node:fs';
import { FileStore } from '../../../src/world/store/index.ts';

const root = process.argv[2];
if (root === undefined) throw new Error('usage: crash-writer.ts <store root>');

const paths = ['/a.md', '/docs/b.md', '/docs/deep/c d.md', '/notes/log.md'];
const store = await FileStore.open(root);
writeSync(1, `ready ${JSON.stringify(store.recovery)}\n`);

function randomText(maxBytes: number): Buffer {
  const size = 1 + randomInt(maxBytes);
  return Buffer.from(
    `${randomBytes(Math.ceil(size / 2))
      .toString('hex')
      .slice(0, size)}\n`,
  );
}

async function writeOnce(): Promise<void> {
  const docPath = paths[randomInt(paths.length)] ?? '/a.md';
  const doc = await store.current(docPath);
  const current = doc?.current.version ?? 0;
  const large = (doc?.current.body.length ?? 0) > 256 * 1024;
  const tags = `round-${randomInt(3)}`;
  const outcome =
    current > 0 && !large && randomInt(2) === 0
      ? await store.append(docPath, randomText(2048), { agent: 'crash' }, { expectedVersion: current })
      : await store.publish(docPath, randomText(64 * 1024), { tags, type: 'Document' }, { expectedVersion: current });
  writeSync(1, `ack ${encodeURIComponent(docPath)} ${outcome.version.version} ${outcome.version.contentHash}\n`);
}

// Any failure (a conflict included: this is the only writer) ends the process with an error,
// which the parent reports as a failed round.
for (;;) await writeOnce();
