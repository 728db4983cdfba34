import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { listenWithMockApi, server } from '../test/server';
import { ApiError, UnexpectedResponseError, apiJson } from './api-client';

listenWithMockApi();

function answer(path: string, body: () => Response, method: 'get' | 'post' = 'get') {
  server.use(http[method](path, body));
}

describe('apiJson: answers parsed with the contract', () => {
  it('returns the answer as the schema parsed it', async () => {
    answer(apiPaths.peopleList, () =>
      HttpResponse.json({ callsign_list: [{ callsign: 'Boss1', roles: ['admin'] }] }),
    );
    await expect(apiJson(apiPaths.peopleList, 'peopleList')).resolves.toEqual({
      callsign_list: [{ callsign: 'Boss1', roles: ['admin'] }],
    });
  });

  it('an answer that does not match is an error naming the call, the field and why', async () => {
    answer(apiPaths.peopleList, () =>
      HttpResponse.json({ callsign_list: [{ callsign: 'Boss1', roles: 'admin' }] }),
    );
    const failure = apiJson(apiPaths.peopleList, 'peopleList');
    await expect(failure).rejects.toBeInstanceOf(UnexpectedResponseError);
    await expect(failure).rejects.toThrow(
      'Unexpected answer to GET /api/v1/people/list: callsign_list.0.roles: Invalid input: expected array, received string',
    );
  });

  it('a role change answering success: false is not a success (the contract says true)', async () => {
    answer(
      apiPaths.promote,
      () => HttpResponse.json({ success: false, detail: 'Promoted' }),
      'post',
    );
    await expect(
      apiJson(apiPaths.promote, 'roleChange', { method: 'POST', body: { callsign: 'Ranger1' } }),
    ).rejects.toThrow(/^Unexpected answer to POST \/api\/v1\/enrollment\/promote: success: /);
  });

  it('a missing field is named', async () => {
    answer(apiPaths.checkAdminCode, () => HttpResponse.json({}));
    await expect(apiJson(apiPaths.checkAdminCode, 'checkAdminCode')).rejects.toThrow(
      'Unexpected answer to GET /api/v1/firstuser/check-code: code_ok: Invalid input: expected boolean, received undefined',
    );
  });

  it('an OK answer that is not JSON is an unexpected answer', async () => {
    answer(apiPaths.healthcheck, () => HttpResponse.text('<html>proxy page</html>'));
    await expect(apiJson(apiPaths.healthcheck, 'healthcheck')).rejects.toThrow(
      'Unexpected answer to GET /api/v1/healthcheck: the answer is not JSON',
    );
  });

  it('a non-OK status stays an ApiError with the server detail', async () => {
    answer(apiPaths.pools, () => HttpResponse.json({ detail: 'Not an admin' }, { status: 403 }));
    const failure = apiJson(apiPaths.pools, 'pools');
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({ status: 403, detail: 'Not an admin' });
  });
});
