import type { Server } from 'node:http';
import type net from 'node:net';
import { plainAddress } from './peer-address.js';

/**
 * Why the share closed a connection: the address already held its share (of unproven ones, or of
 * all) with nothing of its own to close, the pool was full with nothing to close, or it was closed
 * to make room: an unproven one past its grace or the longest-idle one (`made_room`), else the
 * slowest request in flight (`slow_request`).
 */
export type TurnedAwayReason = 'address_share' | 'pool_full' | 'made_room' | 'slow_request';

export interface ConnectionLimits {
  /** Most connections open at once (`PORTAL_MAX_CONNECTIONS`); absent: no cap. */
  maxConnections?: number | undefined;
  /** Most unproven connections of one address (`PORTAL_MAX_UNPROVEN_PER_ADDRESS`); absent: no bound. */
  maxUnprovenPerAddress?: number | undefined;
  /** Most connections of one address (`PORTAL_MAX_CONNECTIONS_PER_ADDRESS`); absent: no bound. */
  maxPerAddress?: number | undefined;
  /**
   * How long a connection may stay unproven, or a request in flight, before a newcomer to a full
   * pool may close it (`UNPROVEN_GRACE_MS` when absent).
   */
  unprovenGraceMs?: number | undefined;
  /** Told of every connection the share closes (the metrics count them). */
  turnedAway?: ((reason: TurnedAwayReason) => void) | undefined;
}

/** Who may keep a connection of one listener: its share of the pool (docs/api.md). */
export interface ConnectionShare {
  /** At accept: keeps `socket`, or destroys it and answers false. */
  admit(socket: net.Socket): boolean;
  /** Follows the requests of `server`, which is handed this listener's connections. */
  watch(server: Server): void;
}

interface Connection {
  key: string;
  address: string;
  /** What to close: the socket the HTTP server reads once a request came, else the accepted one. */
  socket: net.Socket;
  proven: boolean;
  /** When it was accepted (`performance.now()`). */
  acceptedAt: number;
  inFlight: number;
  /** Since when it has had a request in flight (`performance.now()`), while `inFlight` > 0. */
  busySince: number;
}

/**
 * A TLS handshake and a first request take tens of milliseconds, a slow phone's a few hundred: a
 * connection still unproven after a second is more likely one held open to fill the pool.
 */
export const UNPROVEN_GRACE_MS = 1_000;

/**
 * A connection is one TCP connection whatever is wrapped around it (TLS): its two ends name it
 * for the accepted socket and for the TLS socket a request arrives on.
 */
function keyOf(socket: net.Socket): string | undefined {
  const { localAddress, remoteAddress, remotePort } = socket;
  if (localAddress === undefined || remoteAddress === undefined || remotePort === undefined) {
    return undefined;
  }
  return `${localAddress} ${remoteAddress} ${String(remotePort)}`;
}

/**
 * The rule of every listener that takes connections. A connection is *unproven* until its first
 * request has arrived (for TLS, after the handshake); one address may hold at most
 * `maxUnprovenPerAddress` unproven connections, the next is closed at accept. Every connection
 * counts against `maxPerAddress` and `maxConnections`. A newcomer over either bound makes room,
 * in this order: the oldest unproven connection past its grace (so a few addresses holding silent
 * connections cannot keep everyone else out until the handshake timeout), else the one idle
 * longest (no request in flight), else the slowest request in flight (the one in flight longest,
 * past the grace) of the address holding most connections, two more at least than the newcomer's.
 * Over its address's bound, only that
 * address's own unproven-past-grace or idle connections are taken, never its requests. Only when none is there is the newcomer closed: a
 * handshake and a request within their grace are never cut.
 */
export function createConnectionShare(limits: ConnectionLimits): ConnectionShare {
  const { maxConnections, maxUnprovenPerAddress, maxPerAddress } = limits;
  const graceMs = limits.unprovenGraceMs ?? UNPROVEN_GRACE_MS;
  const turnedAway = (reason: TurnedAwayReason) => limits.turnedAway?.(reason);
  const open = new Map<string, Connection>();
  /** Proven connections with no request in flight, the longest idle first. */
  const idle = new Set<Connection>();
  /** Unproven connections, the oldest first. */
  const unproven = new Set<Connection>();
  const unprovenByAddress = new Map<string, number>();
  const heldByAddress = new Map<string, number>();

  const count = (counts: Map<string, number>, address: string, change: number) => {
    const held = (counts.get(address) ?? 0) + change;
    if (held === 0) counts.delete(address);
    else counts.set(address, held);
  };

  const forget = (connection: Connection) => {
    if (open.get(connection.key) !== connection) return;
    open.delete(connection.key);
    idle.delete(connection);
    unproven.delete(connection);
    count(heldByAddress, connection.address, -1);
    if (!connection.proven) count(unprovenByAddress, connection.address, -1);
  };

  /**
   * The request in flight longest, past its grace, of the address holding most connections, if
   * that address holds at least two more than the newcomer's (`newcomerHeld`): holders of about
   * as many would otherwise cut each other's requests in turn, keeping every request young.
   */
  const slowestRequest = (now: number, newcomerHeld: number): Connection | undefined => {
    let slowest: Connection | undefined;
    let slowestHeld = newcomerHeld + 1;
    for (const connection of open.values()) {
      if (connection.inFlight === 0 || now - connection.busySince < graceMs) continue;
      const held = heldByAddress.get(connection.address) ?? 0;
      const older = slowest !== undefined && connection.busySince < slowest.busySince;
      if (held > slowestHeld || (slowest !== undefined && held === slowestHeld && older)) {
        slowest = connection;
        slowestHeld = held;
      }
    }
    return slowest;
  };

  /**
   * What to close for a newcomer from `newcomer` (one of that address's own when `own`), and why;
   * none: refuse.
   */
  const roomFrom = (newcomer: string, own: boolean): [Connection, TurnedAwayReason] | undefined => {
    const address = own ? newcomer : undefined;
    const now = performance.now();
    const ours = (connection: Connection) =>
      address === undefined || connection.address === address;
    for (const connection of unproven) {
      if (now - connection.acceptedAt < graceMs) break;
      if (ours(connection)) return [connection, 'made_room'];
    }
    for (const connection of idle) if (ours(connection)) return [connection, 'made_room'];
    // An address at its own bound is refused rather than let cut its own requests: that would
    // only trade one of its TLS handshakes for another.
    if (own) return undefined;
    const slowest = slowestRequest(now, heldByAddress.get(newcomer) ?? 0);
    return slowest === undefined ? undefined : [slowest, 'slow_request'];
  };

  /** Closes what `roomFrom` names; false when there is nothing it may close. */
  const makeRoom = (newcomer: string, own: boolean): boolean => {
    const room = roomFrom(newcomer, own);
    if (room === undefined) return false;
    const [closing, reason] = room;
    forget(closing);
    closing.socket.destroy();
    turnedAway(reason);
    return true;
  };

  /** Whether `address` may have one more connection, room made if need be; else why not. */
  const admits = (address: string): true | TurnedAwayReason => {
    const unprovenHeld = unprovenByAddress.get(address) ?? 0;
    if (maxUnprovenPerAddress !== undefined && unprovenHeld >= maxUnprovenPerAddress) {
      return 'address_share';
    }
    const held = heldByAddress.get(address) ?? 0;
    if (maxPerAddress !== undefined && held >= maxPerAddress && !makeRoom(address, true)) {
      return 'address_share';
    }
    if (maxConnections !== undefined && open.size >= maxConnections && !makeRoom(address, false)) {
      return 'pool_full';
    }
    return true;
  };

  const onRequest = (request: { socket: net.Socket }, response: NodeJS.EventEmitter) => {
    const key = keyOf(request.socket);
    const connection = key === undefined ? undefined : open.get(key);
    if (connection === undefined) return;
    if (!connection.proven) {
      connection.proven = true;
      connection.socket = request.socket;
      unproven.delete(connection);
      count(unprovenByAddress, connection.address, -1);
      request.socket.once('close', () => {
        forget(connection);
      });
    }
    if (connection.inFlight === 0) connection.busySince = performance.now();
    connection.inFlight += 1;
    idle.delete(connection);
    response.once('close', () => {
      connection.inFlight -= 1;
      if (connection.inFlight === 0 && open.get(connection.key) === connection) {
        idle.add(connection);
      }
    });
  };

  return {
    admit(socket) {
      const key = keyOf(socket);
      const address = socket.remoteAddress === undefined ? '' : plainAddress(socket.remoteAddress);
      if (key === undefined) {
        socket.destroy();
        return false;
      }
      const admitted = admits(address);
      if (admitted !== true) {
        socket.destroy();
        turnedAway(admitted);
        return false;
      }
      const connection: Connection = {
        key,
        address,
        socket,
        proven: false,
        acceptedAt: performance.now(),
        inFlight: 0,
        busySince: 0,
      };
      open.set(key, connection);
      unproven.add(connection);
      count(unprovenByAddress, address, 1);
      count(heldByAddress, address, 1);
      socket.once('close', () => {
        forget(connection);
      });
      return true;
    },
    watch(server) {
      server.on('request', onRequest);
    },
  };
}
