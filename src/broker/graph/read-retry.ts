import { setTimeout as sleep } from 'node:timers/promises';
import { Status } from '../../protocol/status.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { WorldGateway } from '../worlds/gateway.ts';

/**
 * A read that waits and tries again while the world answers `rate-limited`
 * (worlds limit requests per client address, 50/s with a burst of 100 by
 * default, and a crawl is one client). Reads are safe to repeat (the Go
 * client retries FETCH, LIST, VERSIONS and LOOKUP; `client/fetch/fetch.go`). Delays double from `firstDelayMs`; after the last attempt
 * the `rate-limited` answer is returned as it is.
 */
export async function readWithBackoff(
  gateway: WorldGateway,
  world: string,
  call: MarkCall,
  options: { attempts?: number; firstDelayMs?: number } = {},
): Promise<MarkResponse> {
  const attempts = options.attempts ?? 6;
  let delay = options.firstDelayMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    const response = await gateway.read(world, call);
    if (response.status !== Status.RateLimited || attempt >= attempts || call.signal?.aborted) return response;
    await sleep(delay, undefined, call.signal ? { signal: call.signal } : {}).catch(() => {});
    delay *= 2;
  }
}
