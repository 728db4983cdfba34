import { apiPaths } from '@callsign/contract';

/**
 * Whether the portal can be reached, decided from what the app itself sees rather than from
 * `navigator.onLine`. A phone on a unit's Wi-Fi with no uplink, or behind a captive network,
 * reports itself online while no request reaches the portal; and some browsers do not turn
 * `navigator.onLine` false in pages served by the service worker. So:
 *
 * - a request that gets no answer at all (the fetch itself fails) marks the portal unreachable,
 *   and any answer of the portal, whatever its status, marks it reachable again (`noteResponse`,
 *   `noteNoResponse`: the API client reports every call);
 * - the browser's own `offline` event is a hint taken at once, and its `online` event only starts
 *   a check: the portal is reachable again when the health check answers;
 * - while unreachable, the health check is tried again now and then (and whenever the page comes
 *   back into view), so the notice leaves by itself once the portal answers.
 */

type Listener = () => void;

/** How long to wait between checks while the portal cannot be reached, growing to the last. */
const RECHECK_DELAYS_MS = [5_000, 10_000, 20_000, 30_000];

let reachable = true;
let started = false;
let recheckTimer: ReturnType<typeof setTimeout> | undefined;
let recheckIndex = 0;
let checking: Promise<void> | undefined;
const listeners = new Set<Listener>();

function setReachable(next: boolean): void {
  if (next) {
    recheckIndex = 0;
    if (recheckTimer !== undefined) clearTimeout(recheckTimer);
    recheckTimer = undefined;
  } else {
    scheduleRecheck();
  }
  if (next === reachable) return;
  reachable = next;
  for (const listener of listeners) listener();
}

function scheduleRecheck(): void {
  if (recheckTimer !== undefined || listeners.size === 0) return;
  const delay = RECHECK_DELAYS_MS[Math.min(recheckIndex, RECHECK_DELAYS_MS.length - 1)];
  recheckIndex += 1;
  recheckTimer = setTimeout(() => {
    recheckTimer = undefined;
    void checkReachability();
  }, delay);
}

/** Asks the health check (never from a cache); the outcome updates the state. */
export function checkReachability(): Promise<void> {
  checking ??= fetch(new URL(apiPaths.healthcheck, window.location.origin), {
    cache: 'no-store',
    headers: { Accept: 'application/json' },
  })
    .then(
      (response) => {
        noteResponse(response.status);
      },
      () => {
        setReachable(false);
      },
    )
    .finally(() => {
      checking = undefined;
    });
  return checking;
}

/**
 * A response arrived: the portal answered, whatever the status, unless a proxy in front of it
 * says it could not reach the portal (502, 504).
 */
export function noteResponse(status: number): void {
  setReachable(status !== 502 && status !== 504);
}

/** A request to the portal failed without any response (not one the app aborted itself). */
export function noteNoResponse(): void {
  setReachable(false);
}

const onBrowserOffline = () => {
  setReachable(false);
};
const onBrowserOnline = () => {
  void checkReachability();
};
const onVisible = () => {
  if (!reachable && document.visibilityState === 'visible') void checkReachability();
};

function start(): void {
  if (started) return;
  started = true;
  // The browser knows it has no network at all: no need to wait for a request to fail.
  if (!navigator.onLine) reachable = false;
  window.addEventListener('offline', onBrowserOffline);
  window.addEventListener('online', onBrowserOnline);
  document.addEventListener('visibilitychange', onVisible);
}

/** For useSyncExternalStore: called whenever reachability changes. */
export function subscribeReachability(listener: Listener): () => void {
  start();
  listeners.add(listener);
  if (!reachable) scheduleRecheck();
  return () => {
    listeners.delete(listener);
  };
}

export function isPortalReachable(): boolean {
  start();
  return reachable;
}

/** Back to the state of a fresh page (tests share one module between files). */
export function resetReachability(): void {
  if (recheckTimer !== undefined) clearTimeout(recheckTimer);
  recheckTimer = undefined;
  recheckIndex = 0;
  checking = undefined;
  reachable = true;
  started = false;
  listeners.clear();
  window.removeEventListener('offline', onBrowserOffline);
  window.removeEventListener('online', onBrowserOnline);
  document.removeEventListener('visibilitychange', onVisible);
}
