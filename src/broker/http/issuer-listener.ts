import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify';
import { notFoundHandler, plainErrorHandler } from './http-errors.ts';
import { httpMetricsHook } from './http-metrics-hook.ts';
import type { BrokerMetrics } from './metrics.ts';

export type IssuerAppOptions = {
  metrics: BrokerMetrics;
  /** Encapsulated route plugins: the sign-in, OAuth and discovery routes (src/broker/http/signin/). */
  plugins: readonly FastifyPluginAsync[];
  logger?: FastifyServerOptions['logger'];
};

/**
 * The issuer listener (`server.addr`), the public host behind the ingress: only
 * what browsers and clients need (discovery documents, JWKS, OAuth and sign-in
 * routes). Health and metrics live on the management listener (management.ts).
 */
export async function createIssuerApp(options: IssuerAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: 'idle', exposeHeadRoutes: false });
  app.setErrorHandler(plainErrorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onResponse', httpMetricsHook(options.metrics, 'issuer'));
  for (const plugin of options.plugins) await app.register(plugin);
  return app;
}
