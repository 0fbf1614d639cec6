/**
 * A broadcast between the broker replicas over Redis pub/sub, received on the
 * subscriber connection that every channel of the same client shares
 * (redis-subscriber-hub.ts), subscribed again on every reconnect. Messages
 * are best effort: one sent while Redis is down, or while this replica's
 * subscriber reconnects, is lost, so a receiver must also converge without
 * it (the graph does, on its seed interval); `onResubscribed` tells it when
 * the subscriber is back, for a receiver that can catch up at once. A replica ignores its own messages.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { subscribeChannel } from './redis-subscriber-hub.ts';

export type RedisChannel = {
  /** Sends `payload` to every other replica; never throws. */
  publish(payload: string): void;
  close(): Promise<void>;
};

const envelope = z.object({ from: z.string(), payload: z.string() });

export function openRedisChannel(
  client: Redis,
  channel: string,
  onMessage: (payload: string) => void,
  onError: (error: Error) => void,
  onResubscribed?: () => void,
): RedisChannel {
  const self = randomUUID();
  const subscription = subscribeChannel(client, channel, {
    onMessage(text) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      const message = envelope.safeParse(parsed);
      if (message.success && message.data.from !== self) onMessage(message.data.payload);
    },
    onError,
    onResubscribed,
  });
  return {
    publish(payload) {
      client.publish(channel, JSON.stringify({ from: self, payload })).catch(onError);
    },
    close: () => subscription.close(),
  };
}
