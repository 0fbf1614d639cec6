/**
 * Threat: the broker's write token keeps reaching paths the operator took
 * away. `worlds[].defaultToken.paths` is the only path limit on broker writes
 * (the world enforces the paths of the token's tokens.toml entry); an operator
 * narrows `/**` to `/public/**` and runs `helm upgrade`, yet broker writes
 * (any agent the world's allowlist admits) still reach `/private/...`.
 *
 * All three attacks below succeeded before the fix (checked by running this
 * file against it): the provisioner reused the stored record's paths forever,
 * and the tokens.toml edit called an entry with the right hash "unchanged"
 * whatever its paths said, so a widened entry stayed wide too.
 *
 * The real provisioner, stores and sinks: the Kubernetes ones against the
 * fake Kubernetes API server of test/kubernetes/ (real @kubernetes/client-node),
 * the file ones on a temporary directory; the world's own decision
 * (TokenSnapshot, as the world server loads tokens.toml) says what the
 * broker's token may publish.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SecretTokensSink, SecretWriteTokenStore } from '../../src/broker/kubernetes/index.ts';
import { openAllowList } from '../../src/broker/worlds/allowlist.ts';
import type { WorldDefinition } from '../../src/broker/worlds/world-definition.ts';
import {
  FileTokensSink,
  FileWriteTokenStore,
  WriteTokenProvisioner,
  type WorldTokensSink,
  type WriteTokenStore,
} from '../../src/broker/worlds/write-tokens/index.ts';
import { hashToken } from '../../src/protocol/token.ts';
import { publishOperation, TokenSnapshot } from '../../src/world/auth/index.ts';
import { startFakeApiServer, type FakeApiServer } from '../kubernetes/fake-api/server.ts';
import { apis } from '../kubernetes/helpers.ts';

const admin = `[tokens.admin]\nhash = "${hashToken('f'.repeat(64))}"\npaths = ["/**"]\noperations = ["publish"]\n`;

/** What the world answers the broker's token for a PUBLISH to `path`. */
const worldDecides = (toml: string, token: string, path: string) =>
  TokenSnapshot.parse(toml).authorize(token, path, publishOperation);

type Backend = {
  world: (paths: string[]) => WorldDefinition;
  /** A fresh process: a new store, sink and provisioner, as after `helm upgrade` restarts the pods. */
  restart: () => WriteTokenProvisioner;
  tokensToml: () => Promise<string>;
  setTokensToml: (text: string) => Promise<void>;
};

let server: FakeApiServer;
let dir: string;

before(async () => {
  server = await startFakeApiServer();
  dir = await mkdtemp(join(tmpdir(), 'write-token-paths-'));
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function kubernetesBackend(name: string): Backend {
  server.store.create('secrets', {
    metadata: { name: `${name}-tokens`, namespace: name },
    type: 'Opaque',
    data: { 'tokens.toml': Buffer.from(admin).toString('base64') },
  });
  const { core } = apis(server);
  const read = () =>
    Buffer.from(
      (server.store.get('secrets', name, `${name}-tokens`)!.data as Record<string, string>)['tokens.toml']!,
      'base64',
    ).toString('utf8');
  return {
    world: (paths) => definition(name, paths, { namespace: name, secret: `${name}-tokens` }),
    restart: () =>
      provisioner(new SecretWriteTokenStore({ core, namespace: 'demarkus' }), new SecretTokensSink({ core })),
    tokensToml: async () => read(),
    setTokensToml: async (text) => {
      const secret = server.store.get('secrets', name, `${name}-tokens`)!;
      server.store.update('secrets', { ...secret, data: { 'tokens.toml': Buffer.from(text).toString('base64') } });
    },
  };
}

async function fileBackend(name: string): Promise<Backend> {
  const file = join(dir, `${name}.toml`);
  await writeFile(file, admin);
  return {
    world: (paths) => definition(name, paths, { file }),
    restart: () => provisioner(new FileWriteTokenStore(join(dir, 'state')), new FileTokensSink()),
    tokensToml: () => readFile(file, 'utf8'),
    setTokensToml: (text) => writeFile(file, text),
  };
}

const provisioner = (store: WriteTokenStore, sink: WorldTokensSink) => new WriteTokenProvisioner(store, sink);

function definition(name: string, paths: string[], tokens: WorldDefinition['tokens']): WorldDefinition {
  return {
    name,
    address: `${name}.${name}.svc.cluster.local:6309`,
    source: 'config',
    allow: openAllowList,
    writeTokenPaths: paths,
    tokens,
  };
}

const backends: Array<[string, (name: string) => Backend | Promise<Backend>]> = [
  ['Kubernetes Secrets (fake API server)', kubernetesBackend],
  ['files', fileBackend],
];

for (const [label, make] of backends) {
  describe(`write-token paths follow worlds[].defaultToken.paths: ${label}`, () => {
    it('narrowing /** to /public/** takes the broker token off every other path after a restart', async () => {
      const backend = await make(`narrow-${label.startsWith('files') ? 'f' : 'k'}`);
      const before = await backend.restart().token(backend.world(['/**']));
      assert.equal(worldDecides(await backend.tokensToml(), before, '/private/plan.md'), 'ok');

      const after = await backend.restart().token(backend.world(['/public/**']));
      const toml = await backend.tokensToml();
      assert.equal(worldDecides(toml, after, '/private/plan.md'), 'not-permitted', 'outside the configured paths');
      assert.equal(worldDecides(toml, after, '/public/notes.md'), 'ok', 'inside them');
      assert.equal(worldDecides(toml, before, '/private/plan.md'), 'invalid-token', 'the wide token is revoked');
      assert.ok(toml.startsWith(admin), "the operator's own entries are kept");
    });

    it('an entry with the broker hash but wider paths is put back to the configured paths', async () => {
      const backend = await make(`widened-${label.startsWith('files') ? 'f' : 'k'}`);
      const world = backend.world(['/public/**']);
      const token = await backend.restart().token(world);
      const widened = (await backend.tokensToml()).replace('paths = ["/public/**"]', 'paths = ["/**"]');
      await backend.setTokensToml(widened);
      assert.equal(
        worldDecides(widened, token, '/private/plan.md'),
        'ok',
        'the widened entry, before the broker looks',
      );

      const again = await backend.restart().token(world);
      assert.equal(worldDecides(await backend.tokensToml(), again, '/private/plan.md'), 'not-permitted');
    });
  });
}
