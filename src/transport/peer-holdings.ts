/**
 * What each peer address holds on a listener: open connections, and bytes of
 * requests whose exchange has not ended. Without these bounds one address can
 * open connections until the process runs out of them, and keep many requests
 * half sent (no FIN) so that the listener buffers them all: the request
 * timeout frees them, but only after they did the damage.
 *
 * Both are counted per IP (`MarkPeer.host`), so opening more connections does
 * not buy more buffer. A connection over the bound is closed at once; a chunk
 * that would take an address over its byte bound ends that request.
 */

export interface PeerHoldingLimits {
  /** Connections open at once from one IP. */
  maxConnectionsPerIp: number;
  /** Request bytes held at once for one IP, over all its connections, until each exchange ends. */
  maxPendingBytesPerIp: number;
}

interface Holding {
  connections: number;
  pendingBytes: number;
}

export class PeerHoldings {
  readonly #limits: PeerHoldingLimits;
  readonly #byIp = new Map<string, Holding>();

  constructor(limits: PeerHoldingLimits) {
    this.#limits = limits;
  }

  /** Counts a new connection of `ip`, or refuses it (false) when the address already holds its share. */
  openConnection(ip: string): boolean {
    const holding = this.#holding(ip);
    if (holding.connections >= this.#limits.maxConnectionsPerIp) {
      this.#forgetIfEmpty(ip, holding);
      return false;
    }
    holding.connections += 1;
    return true;
  }

  closeConnection(ip: string): void {
    const holding = this.#byIp.get(ip);
    if (holding === undefined) return;
    holding.connections = Math.max(0, holding.connections - 1);
    this.#forgetIfEmpty(ip, holding);
  }

  /** Charges `bytes` more to `ip`, or nothing (false) when that would exceed its bound. */
  charge(ip: string, bytes: number): boolean {
    const holding = this.#holding(ip);
    if (holding.pendingBytes + bytes > this.#limits.maxPendingBytesPerIp) {
      this.#forgetIfEmpty(ip, holding);
      return false;
    }
    holding.pendingBytes += bytes;
    return true;
  }

  release(ip: string, bytes: number): void {
    const holding = this.#byIp.get(ip);
    if (holding === undefined || bytes === 0) return;
    holding.pendingBytes = Math.max(0, holding.pendingBytes - bytes);
    this.#forgetIfEmpty(ip, holding);
  }

  /** What `ip` holds now (for tests and metrics). */
  of(ip: string): Readonly<Holding> {
    return { ...(this.#byIp.get(ip) ?? { connections: 0, pendingBytes: 0 }) };
  }

  #holding(ip: string): Holding {
    let holding = this.#byIp.get(ip);
    if (holding === undefined) {
      holding = { connections: 0, pendingBytes: 0 };
      this.#byIp.set(ip, holding);
    }
    return holding;
  }

  #forgetIfEmpty(ip: string, holding: Holding): void {
    if (holding.connections === 0 && holding.pendingBytes === 0) this.#byIp.delete(ip);
  }
}
