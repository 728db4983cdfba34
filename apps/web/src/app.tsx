import { useEffect, useState } from 'react';
import type { HealthcheckResponse } from '@callsign/contract';
import { fetchHealth } from './lib/health';

/** Placeholder frame until the web issues build the real screens: the header shows the deployment. */
export function App() {
  const [health, setHealth] = useState<HealthcheckResponse | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    fetchHealth(controller.signal).then(setHealth, (error: unknown) => {
      if (!controller.signal.aborted) console.error(error);
    });
    return () => {
      controller.abort();
    };
  }, []);

  return (
    <div className="min-h-dvh bg-stone-50 text-stone-900">
      <header className="flex items-center gap-3 bg-emerald-950 px-4 py-3 text-emerald-50">
        <img src="/favicon.svg" alt="" className="h-8 w-8" />
        <h1 className="text-lg font-semibold">{health?.deployment ?? 'Loading...'}</h1>
      </header>
      <main className="mx-auto max-w-xl px-4 py-8">
        <h2 className="text-2xl font-bold">Callsign Portal</h2>
        <p className="mt-3 text-stone-700">
          Sign in with the one-time code your administrator gave you to get your access key.
        </p>
        {health && (
          <p className="mt-6 text-sm text-stone-500">
            {health.dns} · version {health.version}
          </p>
        )}
      </main>
    </div>
  );
}
