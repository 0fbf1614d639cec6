import type { ServerResponse } from 'node:http';

/**
 * Runs `done` once the response has closed (answered, or the client went),
 * including when it already has — and at most once: a response destroyed
 * before the handler saw it is `destroyed` at once and still emits `close`
 * afterwards (Node emits it on a later tick), and a release run twice would
 * hand its holder a place it never took back (src/broker/http/modern-listen.ts,
 * the per-subject count of open listens).
 */
export function whenClosed(res: ServerResponse, done: () => void): void {
  let pending = true;
  const once = () => {
    if (!pending) return;
    pending = false;
    done();
  };
  res.once('close', once);
  if (res.destroyed) once();
}
