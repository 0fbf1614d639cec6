/**
 * The setup shared by the discovery tests (world-discovery.test.ts and
 * test/security/discovery-takeover.test.ts): one fake Kubernetes API server
 * for the file, no Services and no recorded requests at the start of each
 * test, and at most one real WorldDiscovery per test, stopped after it with
 * its watches closed.
 */
import { after, afterEach, before, beforeEach } from 'node:test';
import { WorldDiscovery, type WorldDiscoveryOptions } from '../../src/broker/kubernetes/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { eventually } from './helpers.ts';

/** A Service that discovery reads as a world: labelled `demarkus.io/world` (with its own name, unless told) and a UDP `mark` port. */
export function worldService(
  namespace: string,
  name: string,
  labels: Record<string, string> = { 'demarkus.io/world': name },
  extra: { port?: number; annotations?: Record<string, string> } = {},
) {
  return {
    metadata: { name, namespace, labels, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { ports: [{ name: 'mark', protocol: 'UDP', port: extra.port ?? 6309, targetPort: 6309 }] },
  };
}

export type DiscoveryFixture = {
  readonly server: FakeApiServer;
  /** The discovery the running test started; throws when it started none. */
  readonly discovery: WorldDiscovery;
  /** Starts a WorldDiscovery of every namespace into a sink that keeps nothing, unless `options` say otherwise. */
  start(options?: Partial<WorldDiscoveryOptions>): Promise<WorldDiscovery>;
  /** Another replica's discovery with the same defaults, not started; the test stops it. */
  replica(options?: Partial<WorldDiscoveryOptions>): WorldDiscovery;
};

/** Registers the file's hooks; call it once, at the top of a test file. */
export function useDiscoveryFixture(): DiscoveryFixture {
  let server: FakeApiServer | undefined;
  let discovery: WorldDiscovery | null = null;
  const running = () => {
    if (server === undefined) throw new Error('the fake API server starts in the before hook');
    return server;
  };
  before(async () => {
    server = await startFakeApiServer();
  });
  beforeEach(() => {
    const api = running();
    for (const object of api.store.list('services', null))
      api.store.delete('services', object.metadata.namespace, object.metadata.name);
    api.requests.length = 0;
    api.watchSecondMs = 1000;
  });
  afterEach(async () => {
    await discovery?.stop();
    discovery = null;
    await eventually(() => running().openWatches === 0, 'watches closed');
  });
  after(async () => {
    await server?.close();
  });
  const replica = (options: Partial<WorldDiscoveryOptions> = {}) =>
    new WorldDiscovery({
      kubeConfig: running().kubeConfig(),
      namespaces: 'all',
      sink: { upsert: () => {}, remove: () => {} },
      configuredWorlds: [],
      watchReconnectDelay: async () => {},
      ...options,
    });
  return {
    get server() {
      return running();
    },
    get discovery() {
      if (discovery === null) throw new Error('this test started no discovery');
      return discovery;
    },
    replica,
    async start(options = {}) {
      const started = replica(options);
      discovery = started;
      await started.start();
      return started;
    },
  };
}
