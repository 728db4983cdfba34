import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { listenWithMockApi, server } from '../../../test/server';
import { resolveSignIn } from './sign-in';

listenWithMockApi();

describe('sign-in resolution without the server', () => {
  it('is unreachable when no answer arrives at all (offline)', async () => {
    server.use(http.get(apiPaths.checkAuthAny, () => HttpResponse.error()));
    expect(await resolveSignIn()).toMatchObject({ authType: null, unreachable: true });
  });

  it('is not unreachable when the server answers, even with an error', async () => {
    server.use(
      http.get(apiPaths.checkAuthAny, () => HttpResponse.json({ detail: 'down' }, { status: 503 })),
    );
    expect(await resolveSignIn()).toMatchObject({ authType: null, unreachable: false });
  });
});
