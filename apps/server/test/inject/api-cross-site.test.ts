import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, createInviteResponseSchema, errorResponseSchema } from '@callsign/contract';
import type { ApiRequestOptions, ApiResponse } from '../support/api-client.js';
import { pathOf, registeredApiRoutes } from '../support/api-routes.js';
import { snapshotTables } from '../support/table-snapshot.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

/**
 * A client certificate is an ambient credential (issue 13, finding 6): the requests below are
 * exactly what a hostile page can make an admin's browser send to the mTLS face, with the
 * headers the browser adds itself (Origin, Sec-Fetch-Site). None of them may change anything or
 * mint a certificate; the same requests from the portal's own pages still work.
 */

const routes = await registeredApiRoutes();
const STATE_CHANGING = routes.filter((route) => ['POST', 'PUT', 'DELETE'].includes(route.method));

const EVIL = 'https://evil.example';

describe('cross-site requests on the mTLS face', () => {
  let portal: InjectPortal;
  let admin: MemberKey;

  beforeAll(async () => {
    portal = await openInjectPortal();
    admin = await portal.addMember('Chief1', { roles: ['admin'] });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  /** As the admin's browser sends it: their key, and the headers a page cannot forge. */
  const fromBrowser = (
    method: string,
    path: string,
    site: 'cross-site' | 'same-site' | 'same-origin',
    options: ApiRequestOptions & { origin?: string } = {},
  ): Promise<ApiResponse> => {
    const { origin, ...rest } = options;
    return portal.api('mtls', method, path, {
      key: admin,
      ...rest,
      headers: {
        'sec-fetch-site': site,
        ...(origin === undefined ? {} : { origin }),
        ...rest.headers,
      },
    });
  };
  const snapshot = () => snapshotTables(portal.portal.database.db);
  const expectDetail = (response: ApiResponse, status: number, detail: string) => {
    expect(response.status, response.text).toBe(status);
    expect(errorResponseSchema.parse(response.json()).detail).toBe(detail);
  };
  const CROSS_SITE = 'Cross-site request refused';
  const NOT_JSON = 'Send the request as Content-Type: application/json';

  it('refuses a <form enctype=text/plain> POST from another site, creating nothing', async () => {
    const before = await snapshot();
    const response = await fromBrowser('POST', apiPaths.createInvite, 'cross-site', {
      origin: EVIL,
      raw: '{"x":"=y"}',
      contentType: 'text/plain',
    });
    expectDetail(response, 403, CROSS_SITE);
    expect(await snapshot()).toBe(before);
  });

  it('refuses form posts without a content type and url-encoded, from another site', async () => {
    const before = await snapshot();
    for (const contentType of [undefined, 'application/x-www-form-urlencoded']) {
      const response = await fromBrowser('POST', apiPaths.createInvite, 'cross-site', {
        origin: EVIL,
        raw: 'a=b',
        ...(contentType === undefined ? {} : { contentType }),
      });
      expectDetail(response, 403, CROSS_SITE);
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses an Origin of another site even when Sec-Fetch-Site is missing', async () => {
    const before = await snapshot();
    const response = await portal.api('mtls', 'POST', apiPaths.createInvite, {
      key: admin,
      headers: { origin: EVIL },
    });
    expectDetail(response, 403, CROSS_SITE);
    expect(await snapshot()).toBe(before);
  });

  it('mints no certificate for a cross-site or same-site GET of enduserpfx or instructions/user', async () => {
    const before = await snapshot();
    for (const path of [apiPaths.keyDownload('Chief1'), apiPaths.instructions]) {
      // An <a href>, <img src> or top-level navigation from another site: no Origin is sent.
      expectDetail(await fromBrowser('GET', path, 'cross-site'), 403, CROSS_SITE);
      // The same from a sibling of {host} under the same registrable domain.
      expectDetail(await fromBrowser('GET', path, 'same-site'), 403, CROSS_SITE);
      expectDetail(await fromBrowser('GET', path, 'cross-site', { origin: EVIL }), 403, CROSS_SITE);
    }
    expect(await snapshot()).toBe(before);
  });

  it('records no audit export for a cross-site or same-site GET of audit.csv', async () => {
    // The export writes its own audit.export event, with text the link chooses: a write.
    const path = `${apiPaths.auditCsv}?action=${encodeURIComponent('sign-in from evil.example')}`;
    const before = await snapshot();
    expectDetail(await fromBrowser('GET', path, 'cross-site'), 403, CROSS_SITE);
    expectDetail(await fromBrowser('GET', path, 'same-site'), 403, CROSS_SITE);
    expectDetail(await fromBrowser('GET', path, 'cross-site', { origin: EVIL }), 403, CROSS_SITE);
    expect(await snapshot()).toBe(before);
    // The admin page's own download link: a same-origin navigation.
    const exported = await fromBrowser('GET', path, 'same-origin');
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('answers the same requests from the portal’s own pages', async () => {
    const created = await fromBrowser('POST', apiPaths.createInvite, 'same-origin', {
      origin: portal.origin('mtls'),
    });
    expect(created.status, created.text).toBe(200);
    createInviteResponseSchema.parse(created.json());
    // Called from the other face of the portal: same-site, with the portal's own Origin.
    const fromPublicPage = await fromBrowser('POST', apiPaths.createInvite, 'same-site', {
      origin: portal.origin('public'),
    });
    expect(fromPublicPage.status, fromPublicPage.text).toBe(200);
    const key = await fromBrowser('GET', apiPaths.keyDownload('Chief1'), 'same-origin');
    expect(key.status, key.text).toBe(200);
    expect(key.headers['content-type']).toBe('application/x-pkcs12');
    // A GET that mints nothing is not a cross-site concern: reading the answer is what CORS
    // refuses, and it stays closed.
    const list = await fromBrowser('GET', apiPaths.pools, 'cross-site', { origin: EVIL });
    expect(list.status).toBe(200);
    expect(Object.keys(list.headers).filter((name) => name.startsWith('access-control-'))).toEqual(
      [],
    );
  });

  it('answers a tool that sends no browser headers (curl, scripts) as before', async () => {
    const created = await portal.api('mtls', 'POST', apiPaths.createInvite, { key: admin });
    expect(created.status, created.text).toBe(200);
  });

  it.each(STATE_CHANGING.map((route) => [route.method, route.url, route] as const))(
    '%s %s wants Content-Type: application/json (415 otherwise, an empty body included)',
    async (method, _url, route) => {
      const path = pathOf(route, 'Nobody1');
      const before = await snapshot();
      for (const options of [
        { raw: '{}', contentType: 'text/plain' },
        { raw: 'a=b', contentType: 'application/x-www-form-urlencoded' },
        { raw: '{}', contentType: 'multipart/form-data; boundary=x' },
        { raw: '' },
      ] satisfies ApiRequestOptions[]) {
        expectDetail(await fromBrowser(method, path, 'same-origin', options), 415, NOT_JSON);
      }
      expect(await snapshot()).toBe(before);
    },
  );

  it('keeps CORS closed: a preflight gets no Access-Control-Allow-* header', async () => {
    const preflight = await portal.api('mtls', 'OPTIONS', apiPaths.createInvite, {
      key: admin,
      headers: {
        origin: EVIL,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expect(
      Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-')),
    ).toEqual([]);
  });
});
