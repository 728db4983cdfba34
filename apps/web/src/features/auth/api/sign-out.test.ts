import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { readStored, STORAGE_KEYS, writeStored } from '../../../lib/storage-keys';
import { listenWithMockApi, server } from '../../../test/server';
import { endStoredSession } from './sign-out';

listenWithMockApi();

afterEach(() => {
  window.localStorage.clear();
});

describe('sign-out on this device', () => {
  it('forgets the session at once and ends the stored token on the server', async () => {
    writeStored(STORAGE_KEYS.token, 'stored.jwt.value');
    writeStored(STORAGE_KEYS.callsign, 'Alpha1');
    const sent: (string | null)[] = [];
    const sentKeepalive: boolean[] = [];
    server.use(
      http.post(apiPaths.signOut, ({ request }) => {
        sent.push(request.headers.get('authorization'));
        sentKeepalive.push(request.keepalive);
        return HttpResponse.json({ success: true });
      }),
    );
    const ending = endStoredSession();
    // Forgotten at once, before the server answers (the page reloads meanwhile).
    expect(readStored(STORAGE_KEYS.token)).toBeNull();
    await ending;
    expect(sent).toEqual(['Bearer stored.jwt.value']);
    expect(readStored(STORAGE_KEYS.callsign)).toBeNull();
    expect(sentKeepalive).toEqual([true]);
  });

  it('forgets the session when the server refuses or cannot be reached', async () => {
    for (const answer of [
      () => HttpResponse.json({ detail: 'Not a token of this portal' }, { status: 400 }),
      () => HttpResponse.error(),
    ]) {
      writeStored(STORAGE_KEYS.token, 'stored.jwt.value');
      server.use(http.post(apiPaths.signOut, answer));
      await endStoredSession();
      expect(readStored(STORAGE_KEYS.token)).toBeNull();
    }
  });

  it('asks the server nothing without a stored token', async () => {
    let asked = false;
    server.use(
      http.post(apiPaths.signOut, () => {
        asked = true;
        return HttpResponse.json({ success: true });
      }),
    );
    await endStoredSession();
    expect(asked).toBe(false);
  });
});
