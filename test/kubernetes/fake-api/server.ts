/**
 * A fake Kubernetes API server over node:http, faithful in what our backends
 * and @kubernetes/client-node rely on: bearer auth, GET/POST/PUT/DELETE of
 * Secrets, Services and Leases, 404 NotFound, 409 AlreadyExists and 409
 * Conflict on a stale resourceVersion, list with resourceVersion and label
 * selectors, and watch as newline-delimited JSON events (replay from a
 * resourceVersion, BOOKMARK events only when `allowWatchBookmarks=true`,
 * a watch ended at its `timeoutSeconds` with a bookmark shortly before,
 * objects leaving a selector's set sent as DELETED, and ERROR 410 Expired for
 * a resourceVersion older than the compacted history). Every request is
 * recorded with its RBAC verb so tests can check the calls a backend made.
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { labelMatcher, SelectorError } from './label-selector.ts';
import { ObjectStore, type KubeObject, type StoredEvent } from './object-store.ts';
import { ApiError, badRequest, statusBody } from './status.ts';
import { validateObject } from './validate.ts';

export type RbacVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete' | 'patch';

export type RecordedRequest = {
  verb: RbacVerb;
  apiGroup: '' | 'coordination.k8s.io';
  resource: string;
  /** `null` for a cluster-wide list or watch. */
  namespace: string | null;
  name: string | null;
  /** Bearer token the client sent. */
  identity: string;
  /** 0: no answer was sent (`hang`). */
  status: number;
  query: URLSearchParams;
};

type Route = { apiGroup: '' | 'coordination.k8s.io'; resource: string; namespace: string | null; name: string | null };

const kinds: Record<string, { kind: string; apiVersion: string }> = {
  secrets: { kind: 'Secret', apiVersion: 'v1' },
  services: { kind: 'Service', apiVersion: 'v1' },
  leases: { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1' },
};

export type Fault = { when: (request: Omit<RecordedRequest, 'status'>) => boolean; status: number; times: number };
type OpenWatch = { response: ServerResponse; bookmarks: boolean; resource: string; held: boolean };
export type WriteHook = (request: Omit<RecordedRequest, 'status'>, body: KubeObject) => void;

export class FakeApiServer {
  readonly store = new ObjectStore();
  readonly requests: RecordedRequest[] = [];
  readonly #tokens: Set<string>;
  readonly #faults: Fault[] = [];
  readonly #writeHooks: WriteHook[] = [];
  readonly #hangs = new Set<Fault['when']>();
  readonly #hung = new Set<ServerResponse>();
  readonly #watches = new Set<OpenWatch>();
  #server: Server | null = null;
  url = '';
  /**
   * How long one second of a watch's `timeoutSeconds` lasts here, in ms. A
   * test shortens it to see a watch reach its deadline without waiting the
   * 25 s the broker asks for (bookmark-watch.ts): the request still carries
   * what the broker sent, and the bookmark still comes two such seconds early.
   */
  watchSecondMs = 1000;

  constructor(tokens: readonly string[] = ['broker']) {
    this.#tokens = new Set(tokens);
  }

  async start(): Promise<this> {
    this.#server = createServer((request, response) => void this.#handle(request, response));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.closeWatches();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }

  /** A client config for `identity` (its bearer token); http needs skipTLSVerify in client-node. */
  kubeConfig(identity = 'broker', namespace = 'default'): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: identity, token: identity }],
      contexts: [{ name: 'fake', cluster: 'fake', user: identity, namespace }],
      currentContext: 'fake',
    });
    return config;
  }

  /** The next `times` requests matching `when` fail with `status`. */
  fail(when: Fault['when'], status: number, times = 1): void {
    this.#faults.push({ when, status, times });
  }

  /** Runs before each create/update is applied, e.g. to make another writer win the race. */
  onWrite(hook: WriteHook): void {
    this.#writeHooks.push(hook);
  }

  /**
   * Requests matching `when` get no answer at all, as from an API server or
   * network path that hangs, until the client gives up (closes the
   * connection) or the server closes. Returns the function that ends it for
   * later requests.
   */
  hang(when: Fault['when']): () => void {
    this.#hangs.add(when);
    return () => void this.#hangs.delete(when);
  }

  /** Hung requests whose connection the client has not closed yet. */
  get openHungRequests(): number {
    return this.#hung.size;
  }

  /** Stops accepting `identity` (its requests get 503), as if its node lost the network. */
  cutOff(identity: string): void {
    this.fail((request) => request.identity === identity, 503, Number.POSITIVE_INFINITY);
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that asked for bookmarks. */
  sendBookmarks(): number {
    let sent = 0;
    for (const watch of this.#watches) {
      if (!watch.bookmarks || watch.held) continue;
      watch.response.write(`${JSON.stringify({ type: 'BOOKMARK', object: this.#bookmarkObject(watch.resource) })}\n`);
      sent++;
    }
    return sent;
  }

  /** Ends every open watch from the server side (as an API server restart or timeout does). */
  closeWatches(): void {
    for (const watch of this.#watches) watch.response.end();
    this.#watches.clear();
  }

  /**
   * Open watches stop receiving events (a lagging watch cache); with
   * `compact()` and `closeWatches()` this makes a client resume from a
   * resourceVersion the server no longer has.
   */
  holdOpenWatches(): void {
    for (const watch of this.#watches) watch.held = true;
  }

  get openWatches(): number {
    return this.#watches.size;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const route = parseRoute(url.pathname);
    const identity = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (route === null)
      return send(response, 404, statusBody(404, `the server could not find the requested resource (${url.pathname})`));
    const verb = rbacVerb(request.method ?? 'GET', route, url.searchParams);
    const seen = { verb, ...route, identity, query: url.searchParams };
    const record = (status: number) => this.requests.push({ ...seen, status });
    if (!this.#tokens.has(identity)) {
      record(401);
      return send(response, 401, statusBody(401, 'Unauthorized'));
    }
    if ([...this.#hangs].some((when) => when(seen))) {
      record(0);
      this.#hung.add(response);
      response.on('close', () => this.#hung.delete(response));
      return;
    }
    const fault = this.#faults.find((candidate) => candidate.times > 0 && candidate.when(seen));
    if (fault !== undefined) {
      fault.times--;
      record(fault.status);
      return send(response, fault.status, statusBody(fault.status, `injected failure ${fault.status}`));
    }
    try {
      if (verb === 'watch') {
        record(200);
        return this.#watch(route, url.searchParams, response);
      }
      const body = ['POST', 'PUT'].includes(request.method ?? '') ? await readJson(request) : null;
      if (body !== null) for (const hook of this.#writeHooks) hook(seen, body);
      const [status, answer] = this.#serve(verb, route, url.searchParams, body);
      record(status);
      send(response, status, answer);
    } catch (error) {
      const body =
        error instanceof ApiError
          ? error.body
          : error instanceof SelectorError
            ? badRequest(error.message).body
            : statusBody(500, String(error));
      record(body.code);
      send(response, body.code, body);
    }
  }

  #serve(verb: RbacVerb, route: Route, query: URLSearchParams, body: KubeObject | null): [number, unknown] {
    const { resource, namespace, name } = route;
    const { kind, apiVersion } = kinds[resource]!;
    switch (verb) {
      case 'get': {
        const found = this.store.get(resource, namespace!, name!);
        if (found === undefined)
          throw new ApiError(statusBody(404, `${resource} "${name}" not found`, 'NotFound', { name, kind: resource }));
        return [200, { kind, apiVersion, ...found }];
      }
      case 'list': {
        const matches = labelMatcher(query.get('labelSelector'));
        const items = this.store.list(resource, namespace).filter((object) => matches(object.metadata.labels));
        return [
          200,
          { kind: `${kind}List`, apiVersion, metadata: { resourceVersion: String(this.store.revision) }, items },
        ];
      }
      case 'create': {
        const object = normalise(body!, namespace!, kind);
        validateObject(resource, object, kind);
        return [201, { kind, apiVersion, ...this.store.create(resource, object) }];
      }
      case 'update': {
        const object = normalise(body!, namespace!, kind);
        if (object.metadata.name !== name)
          throw badRequest(
            `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
          );
        validateObject(resource, object, kind);
        return [200, { kind, apiVersion, ...this.store.update(resource, object) }];
      }
      case 'delete':
        this.store.delete(resource, namespace!, name!);
        return [200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }];
      default:
        throw new ApiError(statusBody(405, `${verb} is not supported by the fake API server`));
    }
  }

  #watch(route: Route, query: URLSearchParams, response: ServerResponse): void {
    const { resource, namespace } = route;
    const matches = labelMatcher(query.get('labelSelector'));
    const inScope = (object: KubeObject) => namespace === null || object.metadata.namespace === namespace;
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders(); // as the API server does: the client's watch() resolves on the headers
    const watch: OpenWatch = {
      response,
      bookmarks: query.get('allowWatchBookmarks') === 'true',
      resource,
      held: false,
    };
    const write = (type: string, object: KubeObject) =>
      !watch.held && response.write(`${JSON.stringify({ type, object: { ...kinds[resource], ...object } })}\n`);
    const deliver = (event: StoredEvent) => {
      if (event.resource !== resource || !inScope(event.object)) return;
      const now = matches(event.object.metadata.labels);
      const before = event.previous !== null && matches(event.previous.metadata.labels);
      if (event.type === 'DELETED') return before && write('DELETED', event.object);
      if (now && (event.type === 'ADDED' || before)) return write(event.type, event.object);
      if (now) return write('ADDED', event.object); // entered the selector's set
      if (before) return write('DELETED', event.object); // left it
    };
    const from = query.get('resourceVersion') ?? '';
    if (from === '' || from === '0') {
      for (const object of this.store.list(resource, namespace))
        if (matches(object.metadata.labels)) write('ADDED', object);
    } else if (Number(from) < this.store.oldestWatchable) {
      const status = statusBody(410, `too old resource version: ${from} (${this.store.oldestWatchable})`, 'Expired');
      response.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      return;
    } else {
      for (const event of this.store.eventsAfter(resource, Number(from))) deliver(event);
    }
    this.#watches.add(watch);
    const unsubscribe = this.store.subscribe(deliver);
    const deadline = this.#deadline(watch, query.get('timeoutSeconds'));
    response.on('close', () => {
      deadline();
      unsubscribe();
      this.#watches.delete(watch);
    });
  }

  /**
   * `timeoutSeconds`, as the API server honours it: the watch ends at the
   * deadline whatever flows, and a watch that asked for bookmarks gets one
   * shortly before it (the apiserver's watch cache aims two seconds before the
   * deadline, so that a client can resume from it). Returns the cancel.
   */
  #deadline(watch: OpenWatch, timeoutSeconds: string | null): () => void {
    const seconds = Number(timeoutSeconds);
    if (timeoutSeconds === null || !Number.isInteger(seconds) || seconds <= 0) return () => {};
    const bookmark = setTimeout(
      () => {
        if (!watch.bookmarks || watch.held) return;
        watch.response.write(`${JSON.stringify({ type: 'BOOKMARK', object: this.#bookmarkObject(watch.resource) })}\n`);
      },
      Math.max(0, seconds - 2) * this.watchSecondMs,
    );
    const end = setTimeout(() => watch.response.end(), seconds * this.watchSecondMs);
    return () => {
      clearTimeout(bookmark);
      clearTimeout(end);
    };
  }

  #bookmarkObject(resource: string) {
    const { kind, apiVersion } = kinds[resource]!;
    return { kind, apiVersion, metadata: { resourceVersion: String(this.store.revision) } };
  }
}

function parseRoute(pathname: string): Route | null {
  const core = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?(secrets|services)(?:\/([^/]+))?$/.exec(pathname);
  const coordination = /^\/apis\/coordination\.k8s\.io\/v1\/(?:namespaces\/([^/]+)\/)?(leases)(?:\/([^/]+))?$/.exec(
    pathname,
  );
  const match = core ?? coordination;
  if (match === null || (match[3] !== undefined && match[1] === undefined)) return null;
  return {
    apiGroup: core ? '' : 'coordination.k8s.io',
    resource: match[2]!,
    namespace: match[1] ?? null,
    name: match[3] ?? null,
  };
}

function rbacVerb(method: string, route: Route, query: URLSearchParams): RbacVerb {
  if (method === 'GET') return route.name !== null ? 'get' : query.get('watch') === 'true' ? 'watch' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'DELETE') return 'delete';
  return 'patch';
}

function normalise(body: KubeObject, namespace: string, kind: string): KubeObject {
  if (body.kind !== undefined && body.kind !== kind)
    throw badRequest(`expected kind ${kind}, got ${String(body.kind)}`);
  if (body.metadata?.namespace !== undefined && body.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = body;
  return { ...rest, metadata: { ...body.metadata, namespace } };
}

async function readJson(request: IncomingMessage): Promise<KubeObject> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubeObject;
  } catch {
    throw badRequest('the request body is not JSON');
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export async function startFakeApiServer(tokens?: readonly string[]): Promise<FakeApiServer> {
  return new FakeApiServer(tokens).start();
}
