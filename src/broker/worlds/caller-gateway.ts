import type { MarkResponse } from '../../protocol/response.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { Identity } from '../identity.ts';
import type { WorldGateway, WorldInfo } from './gateway.ts';

/**
 * The gateway as one caller's tools see it: every read is charged to the
 * caller's share of a world's streams (writes already name the caller), so
 * tools need not pass the subject along themselves.
 */
export function callerGateway(gateway: WorldGateway, identity: Pick<Identity, 'subject'>): WorldGateway {
  return {
    list: (): readonly WorldInfo[] => gateway.list(),
    get: (name: string) => gateway.get(name),
    canWrite: (world, who) => gateway.canWrite(world, who),
    read: (world: string, call: MarkCall, caller?: string): Promise<MarkResponse> =>
      gateway.read(world, call, caller ?? identity.subject),
    write: (world, who, call) => gateway.write(world, who, call),
    health: (world) => gateway.health?.(world),
    // The shared gateway is closed by its owner, never by one caller's view.
    close: async () => {},
  };
}
