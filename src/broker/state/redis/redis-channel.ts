/**
 * A broadcast between the broker replicas over Redis pub/sub: one extra
 * connection in subscriber mode (ioredis dedicates a connection to it),
 * subscribed again on every reconnect. Messages are best effort: one sent
 * while Redis is down, or while this replica's subscriber reconnects, is
 * lost, so a receiver must also converge without it (the graph does, on its
 * seed interval); `onResubscribed` tells it when the subscriber is back, for
 * a receiver that can catch up at once. A replica ignores its own messages.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

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
  const subscriber = client.duplicate({ autoResubscribe: false, lazyConnect: true });
  subscriber.on('error', () => undefined);
  let subscribedBefore = false;
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(() => {
      // Subscribed again after a drop: what was sent in between never came.
      if (subscribedBefore) onResubscribed?.();
      subscribedBefore = true;
    }, onError);
  });
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const message = envelope.safeParse(parsed);
    if (message.success && message.data.from !== self) onMessage(message.data.payload);
  });
  void subscriber.connect().catch(() => undefined);
  return {
    publish(payload) {
      client.publish(channel, JSON.stringify({ from: self, payload })).catch(onError);
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
