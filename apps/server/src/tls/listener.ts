import type { Server } from 'node:http';
import type net from 'node:net';

/** What the service listens with: a TLS listener of its own, or plain HTTP behind a proxy. */
export interface PortalListener {
  /** The listener: one port (both faces of the portal, or the TAK enrollment face). */
  readonly listener: net.Server;
  listen(port: number, host: string): Promise<void>;
  /** Stops accepting, lets requests in flight finish, then closes what is left after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Stops `listener` accepting, closes idle keep-alive connections of `servers` as their requests
 * finish, and cuts whatever is still open after `graceMs`.
 */
export async function closeGracefully(
  listener: net.Server,
  servers: readonly Server[],
  graceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    listener.close(() => {
      resolve();
    });
  });
  const deadline = Date.now() + graceMs;
  const drain = setInterval(() => {
    for (const server of servers) {
      if (Date.now() >= deadline) server.closeAllConnections();
      else server.closeIdleConnections();
    }
  }, 50);
  try {
    await closed;
  } finally {
    clearInterval(drain);
    for (const server of servers) {
      server.closeAllConnections();
      if (server !== listener) server.close();
    }
  }
}
