import type { FastifyInstance } from 'fastify';

/**
 * Closes a listener the graceful way: it stops accepting at once, idle
 * keep-alive connections close (the app is built with `forceCloseConnections:
 * 'idle'`), the requests in flight may finish for up to `graceMs`, and the
 * connections still open then (slow requests, SSE streams) are closed.
 */
export async function closeWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  const bound = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(bound);
  }
}
