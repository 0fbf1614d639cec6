import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { notFoundHandler, plainErrorHandler } from './http-errors.ts';
import { httpMetricsHook } from './http-metrics-hook.ts';
import type { BrokerMetrics } from './metrics.ts';

/**
 * Named readiness checks; the broker is ready only when every one is true. A
 * failing check is `false` (the verdict names the check) or the reason it fails,
 * which the verdict names instead (`serving: 'draining'` reads "not ready: draining").
 */
export type ReadinessChecks = Record<string, true | false | string>;

export type ManagementAppOptions = {
  metrics: BrokerMetrics;
  /** Whether `/metrics` is served (`metrics.enabled`); when not, it answers 404 like any unknown path. */
  serveMetrics?: boolean;
  /** E.g. `{ listeners }`; a throw counts as not ready. */
  ready: () => ReadinessChecks | Promise<ReadinessChecks>;
  /** Lines after the verdict, ready or not: each world's health, so an operator sees which do not answer. */
  detail?: () => readonly string[];
  logger?: FastifyServerOptions['logger'];
};

/**
 * The management listener (`server.management.addr`): liveness, readiness and
 * (unless turned off) metrics, and nothing else. It is kept apart from the
 * issuer listener because the issuer host is public behind the ingress, and
 * `/readyz` and `/metrics` name every world, its health and its call volumes
 * (docs/decisions.md); the chart exposes this port inside the cluster only.
 */
export async function createManagementApp(options: ManagementAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: 'idle', exposeHeadRoutes: false });
  app.setErrorHandler(plainErrorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onResponse', httpMetricsHook(options.metrics, 'management'));
  // Liveness: answers while the process can answer at all, whatever its dependencies do.
  app.get('/healthz', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok\n'));
  app.get('/readyz', async (request, reply) => {
    const failing = await failingChecks(options.ready, (error) =>
      request.log.warn({ err: error }, 'readiness check threw'),
    );
    reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store');
    const detail = (options.detail?.() ?? []).map((line) => `${line}\n`).join('');
    return failing.length === 0
      ? reply.send(`ready\n${detail}`)
      : reply.code(503).send(`not ready: ${failing.join(', ')}\n${detail}`);
  });
  if (options.serveMetrics ?? true)
    app.get('/metrics', async (_request, reply) => {
      const body = await options.metrics.registry.metrics();
      return reply.type(options.metrics.registry.contentType).send(body);
    });
  return app;
}

async function failingChecks(
  ready: ManagementAppOptions['ready'],
  onThrow: (error: unknown) => void,
): Promise<string[]> {
  try {
    const checks = await ready();
    const failing = Object.entries(checks)
      .filter(([, verdict]) => verdict !== true)
      .map(([name, verdict]) => (typeof verdict === 'string' ? verdict : name));
    return Object.keys(checks).length === 0 ? ['no checks'] : failing;
  } catch (error) {
    onThrow(error);
    return ['readiness check failed'];
  }
}
