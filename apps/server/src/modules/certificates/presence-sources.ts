import { BlockList, isIP } from 'node:net';

export interface PresenceSourceOptions {
  /** `PORTAL_TAK_SERVER_ADDRESSES`: addresses or CIDR ranges; empty: CRL fetchers count. */
  takServers?: readonly string[];
  /** How long a CRL fetch makes its address count (the CRL's validity). */
  crlFetcherMs?: number;
}

/** The CRL fetchers remembered per instance; the oldest go first. */
const MAX_FETCHERS = 1_000;
const DEFAULT_FETCHER_MS = 7 * 86_400_000;

/** A fetch the database recorded (another instance's, too). */
interface Fetch {
  at: number;
  address: string | null;
}

/** An IPv4 address as Node may show it on a dual-stack socket (`::ffff:10.0.0.5`) made plain. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * Whose OCSP requests count as presence (docs/operations.md#tak-readiness): with
 * `PORTAL_TAK_SERVER_ADDRESSES`, only those addresses'; without it, those of an address that
 * fetched the CRL within its validity (on this instance, or the last fetch any instance recorded).
 * Anyone may ask the responder about a serial: the rest is not counted.
 */
export class PresenceSources {
  private readonly configured: BlockList | undefined;
  private readonly fetchers = new Map<string, number>();
  private readonly fetcherMs: number;

  constructor(options: PresenceSourceOptions = {}) {
    this.fetcherMs = options.crlFetcherMs ?? DEFAULT_FETCHER_MS;
    const servers = options.takServers ?? [];
    if (servers.length === 0) return;
    this.configured = new BlockList();
    for (const entry of servers) {
      const [address = '', bits] = entry.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.configured.addAddress(address, family);
      else this.configured.addSubnet(address, Number(bits), family);
    }
  }

  /** Someone at `address` fetched the CRL at `at`. */
  crlFetched(address: string | null, at: number): void {
    if (this.configured !== undefined || address === null) return;
    const key = plain(address);
    this.fetchers.delete(key);
    this.fetchers.set(key, at);
    if (this.fetchers.size > MAX_FETCHERS) {
      const [oldest] = this.fetchers.keys();
      if (oldest !== undefined) this.fetchers.delete(oldest);
    }
  }

  /** Whether `counts` would need the database's last CRL fetch for this request. */
  needsDatabase(address: string | null, at: number): boolean {
    return this.configured === undefined && address !== null && !this.fetchedHere(address, at);
  }

  /** Whether an OCSP request from `address` at `at` counts; `lastCrl`: the database's. */
  counts(address: string | null, at: number, lastCrl?: Fetch): boolean {
    if (address === null) return false;
    const key = plain(address);
    if (this.configured !== undefined) {
      return this.configured.check(key, isIP(key) === 6 ? 'ipv6' : 'ipv4');
    }
    if (this.fetchedHere(key, at)) return true;
    return (
      lastCrl?.address != null &&
      plain(lastCrl.address) === key &&
      at - lastCrl.at <= this.fetcherMs
    );
  }

  private fetchedHere(address: string, at: number): boolean {
    const fetched = this.fetchers.get(plain(address));
    return fetched !== undefined && at - fetched <= this.fetcherMs;
  }
}
