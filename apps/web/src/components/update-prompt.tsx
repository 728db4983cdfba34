import { useEffect, useState } from 'react';
import { Workbox } from 'workbox-window';
import { UpdateBanner } from './update-banner';

type Activate = () => Promise<void>;

interface Registration {
  listeners: Set<(activate: Activate) => void>;
  waiting?: Activate;
}

/** Registered once per page load, whatever renders this. */
let registration: Registration | undefined;

function register(): Registration {
  if (registration !== undefined) return registration;
  const state: Registration = { listeners: new Set() };
  const workbox = new Workbox('/sw.js', { scope: '/' });
  // A new build's worker is installed and waits for the open pages: offer it.
  workbox.addEventListener('waiting', () => {
    state.waiting = () => {
      workbox.addEventListener('controlling', () => {
        window.location.reload();
      });
      workbox.messageSkipWaiting();
      return Promise.resolve();
    };
    for (const listener of state.listeners) listener(state.waiting);
  });
  void workbox.register();
  registration = state;
  return state;
}

/**
 * Registers the service worker (the offline guides, `vite.config.ts`) and, when a new build has
 * been deployed and its worker is waiting, offers to reload into it. Loaded lazily, after the
 * page, so none of this weighs on the first load.
 */
export default function UpdatePrompt() {
  const [activate, setActivate] = useState<Activate | undefined>(undefined);
  useEffect(() => {
    const state = register();
    const listener = (waiting: Activate) => {
      setActivate(() => waiting);
    };
    if (state.waiting !== undefined) listener(state.waiting);
    state.listeners.add(listener);
    return () => {
      state.listeners.delete(listener);
    };
  }, []);
  if (activate === undefined) return null;
  return (
    <UpdateBanner
      onReload={() => {
        void activate();
      }}
    />
  );
}
