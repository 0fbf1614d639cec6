/**
 * The replicas' served-names record (served-names.ts) holds one entry per
 * discovered world, and its Secret holds nothing else. At the ceiling of
 * `discovery.maxWorlds`, with every name and Service at the longest
 * Kubernetes allows (63-character world names, namespaces and Service names),
 * it must still fit one Secret, with room to spare: written through the real
 * SecretStateStore and client-node to the fake API server, which refuses a
 * Secret over 1 MiB as the API server does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { maxDiscoveredWorldsCeiling } from '../../src/broker/config/schema.ts';
import { defaultDocumentLocation, SecretStateStore } from '../../src/broker/kubernetes/index.ts';
import { ServedNamesRecord, servedNamesDocument } from '../../src/broker/kubernetes/served-names.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { maxSecretBytes } from './fake-api/validate.ts';
import { apis } from './helpers.ts';

let server: FakeApiServer;
before(async () => {
  server = await startFakeApiServer();
});
after(() => server.close());

/** A DNS label of exactly 63 characters that ends in `i`. */
const longest = (prefix: string, i: number) => `${prefix}-${i}`.padStart(63, 'x');

describe('the served-names record at discovery.maxWorlds (fake API server)', () => {
  it('fits one Secret with at least half of it to spare at the ceiling, the longest names throughout', async () => {
    const store = new SecretStateStore({
      core: apis(server).core,
      namespace: 'demarkus',
      locate: defaultDocumentLocation('demarkus-broker-refresh-tokens'),
    });
    const worstCase: Record<string, string> = {};
    for (let i = 1; i < maxDiscoveredWorldsCeiling; i++)
      worstCase[longest('w', i)] = `${longest('ns', i)}/${longest('svc', i)}`;
    await store.update(servedNamesDocument, () => Buffer.from(JSON.stringify(worstCase)));
    // The last world through the record itself, as discovery writes it.
    const last = maxDiscoveredWorldsCeiling;
    await new ServedNamesRecord(store).record(longest('w', last), `${longest('ns', last)}/${longest('svc', last)}`);

    const secret = server.store.get('secrets', 'demarkus', 'demarkus-broker-state-discovery-served-names');
    const data = (secret?.data ?? {}) as Record<string, string>;
    assert.deepEqual(Object.keys(data), [servedNamesDocument], 'the record is alone in its Secret');
    const bytes = Buffer.from(data[servedNamesDocument]!, 'base64').length;
    assert.equal((await new ServedNamesRecord(store).read()).size, maxDiscoveredWorldsCeiling);
    assert.ok(bytes < maxSecretBytes / 2, `${bytes} bytes at ${maxDiscoveredWorldsCeiling} worlds`);
  });
});
