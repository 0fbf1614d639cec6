/**
 * The `StateDocumentStore` operations that a self-bounding family of
 * documents needs (`readAll` of a prefix, `remove`), run alike against the
 * memory, file and Kubernetes Secret backends (the Secret one against the fake
 * API server with the real @kubernetes/client-node): a difference between
 * them is a bug in one.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultDocumentLocation, SecretStateStore } from '../../../src/broker/kubernetes/index.ts';
import {
  FileStateStore,
  MemoryStateStore,
  registeredClientDocument,
  registeredClientPrefix,
  type StateDocumentStore,
} from '../../../src/broker/state/index.ts';
import { startFakeApiServer, type FakeApiServer } from '../../kubernetes/fake-api/server.ts';
import { apis } from '../../kubernetes/helpers.ts';

let server: FakeApiServer;
const dirs: string[] = [];
before(async () => {
  server = await startFakeApiServer();
});
after(async () => {
  await server?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

let namespaces = 0;
const backends: Array<[string, () => Promise<StateDocumentStore>]> = [
  ['memory', async () => new MemoryStateStore()],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'demarkus-state-'));
      dirs.push(dir);
      return new FileStateStore(join(dir, 'state'));
    },
  ],
  [
    'kubernetes secret',
    async () => {
      namespaces += 1; // a namespace per test: its Secrets start empty
      return new SecretStateStore({
        core: apis(server).core,
        namespace: `contract-${namespaces}`,
        locate: defaultDocumentLocation('refresh-tokens'),
      });
    },
  ],
];

const write = (store: StateDocumentStore, document: string, text: string) =>
  store.update(document, () => Buffer.from(text));

for (const [name, open] of backends) {
  describe(`StateDocumentStore contract: ${name}`, () => {
    it('reads every document of a prefix and nothing else, and nothing before anything is written', async () => {
      const store = await open();
      assert.deepEqual(await store.readAll(registeredClientPrefix), new Map());
      await write(store, registeredClientDocument('a'.repeat(32)), '{"a":1}');
      await write(store, registeredClientDocument('b'.repeat(32)), '{"b":2}');
      await write(store, 'registered_clients.json', '{"clients":{}}');
      await write(store, 'refresh_tokens.json', '{"families":{}}');
      const found = await store.readAll(registeredClientPrefix);
      assert.deepEqual(
        [...found].map(([document, bytes]) => [document, bytes.toString()]),
        [
          [registeredClientDocument('a'.repeat(32)), '{"a":1}'],
          [registeredClientDocument('b'.repeat(32)), '{"b":2}'],
        ],
      );
    });

    it('removes documents, absent ones without error, and leaves the others', async () => {
      const store = await open();
      const [a, b] = [registeredClientDocument('a'.repeat(32)), registeredClientDocument('b'.repeat(32))];
      await store.remove([a]);
      await write(store, a, 'A');
      await write(store, b, 'B');
      await write(store, 'registered_clients.json', 'legacy');
      await store.remove([a, registeredClientDocument('c'.repeat(32))]);
      assert.equal(await store.read(a), null);
      assert.equal((await store.read(b))?.toString(), 'B');
      assert.equal((await store.read('registered_clients.json'))?.toString(), 'legacy');
      assert.deepEqual([...(await store.readAll(registeredClientPrefix)).keys()], [b]);
      await write(store, a, 'again');
      assert.equal((await store.read(a))?.toString(), 'again', 'a removed document can be written again');
    });
  });
}

it('the file backend leaves no file behind for a removed document', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-state-'));
  dirs.push(dir);
  const store = new FileStateStore(dir);
  await write(store, registeredClientDocument('a'.repeat(32)), 'A');
  await store.remove([registeredClientDocument('a'.repeat(32))]);
  assert.deepEqual(await readdir(dir), []);
});
