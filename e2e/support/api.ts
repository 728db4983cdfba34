import https from 'node:https';
import { readFile } from 'node:fs/promises';
import type { Portal } from './service.js';

interface Answer {
  status: number;
  body: Buffer;
  json(): unknown;
}

/** A call to the portal over TLS, trusting its CA, as the setup steps of a browser test. */
export async function call(
  service: Portal,
  method: string,
  path: string,
  options: {
    json?: unknown;
    bearer?: string;
    /** A .pfx to present on the mTLS face. */
    key?: { pfxFile: string; password: string };
  } = {},
): Promise<Answer> {
  const ca = await readFile(service.rootCaFile, 'utf8');
  const host = options.key === undefined ? 'portal.localhost' : 'mtls.portal.localhost';
  const pfx = options.key === undefined ? undefined : await readFile(options.key.pfxFile);
  const payload =
    options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json));
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        servername: host,
        port: service.port,
        method,
        path,
        ca,
        ...(pfx === undefined ? {} : { pfx, passphrase: options.key?.password }),
        headers: {
          host: `${host}:${service.port}`,
          // Every call that changes state says JSON, body or not (the portal refuses others).
          ...(payload === undefined && method === 'GET'
            ? {}
            : { 'content-type': 'application/json' }),
          ...(options.bearer === undefined ? {} : { authorization: `Bearer ${options.bearer}` }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            body,
            json: () => JSON.parse(body.toString('utf8')) as unknown,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

function field(value: unknown, name: string): string {
  const found = (value as Record<string, unknown>)[name];
  if (typeof found !== 'string') throw new Error(`no ${name} in ${JSON.stringify(value)}`);
  return found;
}

/** The first admin through the API (admin code from the start banner): token and .pfx. */
export async function firstAdmin(
  service: Portal,
  callsign: string,
): Promise<{ jwt: string; pfx: Buffer }> {
  const code = new URL(service.adminLink).searchParams.get('code') ?? '';
  const exchange = async (value: string) =>
    field(
      (
        await call(service, 'POST', '/api/v1/token/code/exchange', { json: { code: value } })
      ).json(),
      'jwt',
    );
  const firstAdmin = await exchange(code);
  const added = await call(service, 'POST', '/api/v1/firstuser/add-admin', {
    json: { callsign },
    bearer: firstAdmin,
  });
  const member = await exchange(field(added.json(), 'jwt_exchange_code'));
  const key = await call(service, 'GET', `/api/v1/enduserpfx/${callsign}`, { bearer: member });
  if (key.status !== 200) throw new Error(`key download answered ${key.status}`);
  return { jwt: member, pfx: key.body };
}

/** A member through the API: an invite, the enrollment, the admin's approval, then their .pfx. */
export async function approvedMember(
  service: Portal,
  adminKey: { pfxFile: string; password: string },
  callsign: string,
): Promise<Buffer> {
  const created = await call(service, 'POST', '/api/v1/enrollment/invitecode/create', {
    key: adminKey,
  });
  const enrolled = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
    json: { callsign, invite_code: field(created.json(), 'invite_code') },
  });
  const accepted = await call(service, 'POST', '/api/v1/enrollment/accept', {
    key: adminKey,
    json: { callsign, approvecode: field(enrolled.json(), 'approvecode') },
  });
  if (accepted.status !== 200) throw new Error(`the approval answered ${accepted.status}`);
  const key = await call(service, 'GET', `/api/v1/enduserpfx/${callsign}`, {
    bearer: field(enrolled.json(), 'jwt'),
  });
  if (key.status !== 200) throw new Error(`key download answered ${key.status}`);
  return key.body;
}
