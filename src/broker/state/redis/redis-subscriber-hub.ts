/**
 * One subscriber connection per Redis client, shared by every channel opened
 * on that client. A connection in subscriber mode can only (un)subscribe
 * (https://redis.io/docs/latest/develop/interact/pubsub/), so ioredis needs a
 * duplicate of the client for it; but one such connection carries any number
 * of channels, so a replica needs one, not one per channel. The hub subscribes
 * each channel, hands each message to the listeners of its channel, subscribes
 * them all again on every reconnect (ioredis' own `autoResubscribe` is off so
 * that the hub knows when that happened), and closes the connection when the
 * last listener leaves.
 */
import type { Redis } from 'ioredis';

export type ChannelListener = {
  onMessage(text: string): void;
  onError(error: Error): void;
  /** Called when the channel is subscribed again after the connection dropped, not the first time. */
  onResubscribed?(): void;
};

export type Subscription = {
  /** Stops the listener; the last one to go closes the shared connection. */
  close(): Promise<void>;
};

type Hub = {
  subscriber: Redis;
  channels: Map<string, ChannelState>;
};
/** `subscribed`: Redis confirmed the subscription on the current connection. */
type ChannelState = { listeners: Set<ListenerState>; subscribed: boolean };
type ListenerState = { listener: ChannelListener; subscribedBefore: boolean };

const hubs = new WeakMap<Redis, Hub>();

export function subscribeChannel(client: Redis, channel: string, listener: ChannelListener): Subscription {
  const hub = hubs.get(client) ?? openHub(client);
  const state: ListenerState = { listener, subscribedBefore: false };
  const sameChannel = hub.channels.get(channel);
  if (sameChannel) {
    // Already subscribed: the next subscribe is a resubscription for this listener too. Still
    // pending: its confirmation counts as this listener's first.
    state.subscribedBefore = sameChannel.subscribed;
    sameChannel.listeners.add(state);
  } else {
    hub.channels.set(channel, { listeners: new Set([state]), subscribed: false });
    // Not ready yet: the `ready` handler subscribes every channel the hub has by then.
    if (hub.subscriber.status === 'ready') subscribe(hub, [channel]);
  }
  let closed = false;
  return {
    async close() {
      if (closed) return;
      closed = true;
      const states = hub.channels.get(channel);
      states?.listeners.delete(state);
      if (states?.listeners.size !== 0) return;
      hub.channels.delete(channel);
      if (hub.channels.size > 0) {
        if (hub.subscriber.status === 'ready') await hub.subscriber.unsubscribe(channel).catch(() => undefined);
        return;
      }
      hubs.delete(client);
      await hub.subscriber.quit().catch(() => hub.subscriber.disconnect());
    },
  };
}

function openHub(client: Redis): Hub {
  const subscriber = client.duplicate({ autoResubscribe: false, lazyConnect: true });
  const hub: Hub = { subscriber, channels: new Map() };
  hubs.set(client, hub);
  // Each listener hears of a failed subscribe through its own onError; reconnection is ioredis'.
  subscriber.on('error', () => undefined);
  subscriber.on('ready', () => {
    if (hub.channels.size > 0) subscribe(hub, [...hub.channels.keys()]);
  });
  // A new connection starts with no subscription.
  subscriber.on('close', () => {
    for (const state of hub.channels.values()) state.subscribed = false;
  });
  subscriber.on('message', (channel: string, text: string) => {
    for (const state of hub.channels.get(channel)?.listeners ?? []) state.listener.onMessage(text);
  });
  void subscriber.connect().catch(() => undefined);
  return hub;
}

function subscribe(hub: Hub, channels: string[]): void {
  hub.subscriber.subscribe(...channels).then(
    () => {
      for (const channel of channels) {
        const subscribed = hub.channels.get(channel);
        if (subscribed === undefined) continue;
        subscribed.subscribed = true;
        for (const state of subscribed.listeners) {
          // Subscribed again after a drop: what was sent in between never came.
          if (state.subscribedBefore) state.listener.onResubscribed?.();
          state.subscribedBefore = true;
        }
      }
    },
    (error: Error) => {
      for (const channel of channels) {
        for (const state of hub.channels.get(channel)?.listeners ?? []) state.listener.onError(error);
      }
    },
  );
}
