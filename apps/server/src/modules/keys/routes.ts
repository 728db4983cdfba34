import { X509Certificate } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  caExpiryResponseSchema,
  callsignParamsSchema,
  expiringQuerySchema,
  expiringResponseSchema,
  iso,
  keyDownloadParamsSchema,
  keyDownloadQuerySchema,
  keyListResponseSchema,
  keystoreResponseSchema,
  ownKeyParamsSchema,
  personKeyParamsSchema,
  renewalCodeBodySchema,
  renewalCodeResponseSchema,
  revokeKeyResponseSchema,
  type CaExpiryResponse,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';

/** GET enduserpfx/{callsign}?format=legacy|modern (valid user): the caller's own keystore. */
export function registerKeysRoutes(app: FastifyInstance, context: RouteContext): void {
  const { keys } = context.services;

  app.withTypeProvider<ZodTypeProvider>().get(
    `${API_PREFIX}/enduserpfx/:callsign`,
    {
      config: { access: 'member', mints: true, handsOutKey: true },
      schema: {
        params: keyDownloadParamsSchema,
        querystring: keyDownloadQuerySchema,
        response: {
          200: {
            description: 'The keystore: PKCS#12, password the callsign',
            content: { 'application/x-pkcs12': { schema: keystoreResponseSchema } },
          },
        },
      },
    },
    async (request, reply) => {
      const { actor } = callerOf(request);
      const key = await keys.download(actor, request.params.callsign, request.query.format);
      // The typed reply wants the File the contract documents; Fastify sends a Buffer as it is.
      return (reply as FastifyReply)
        .type('application/x-pkcs12')
        .header('content-disposition', `attachment; filename="${key.callsign}.pfx"`)
        .header('cache-control', 'no-store')
        .send(key.pfx);
    },
  );
}

function expiryOf(pem: string | X509Certificate): CaExpiryResponse['root'] {
  const certificate = typeof pem === 'string' ? new X509Certificate(pem) : pem;
  return { subject: certificate.subject, expires_at: new Date(certificate.validTo).toISOString() };
}

function isoOrNull(date: Date | undefined): string | null {
  return date === undefined ? null : iso(date.getTime());
}

/**
 * Keys over their life: the member's own keys (a valid user, by key or token)
 * and any member's keys, the expiring members, renewal codes and the CA's own expiry (admin,
 * by key on the mTLS face).
 */
export function registerKeyLifecycleRoutes(app: FastifyInstance, context: RouteContext): void {
  const { keyLifecycle: keys, renewalCodes: renewal } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.myKeys,
    { config: { access: 'member' }, schema: { response: { 200: keyListResponseSchema } } },
    (request) => {
      const { identity, member } = callerOf(request);
      // The key in use is the certificate of this request; a bearer token has none.
      const current = identity.type === 'mtls' ? identity.payload.serial : null;
      return keys.listOwn(member.callsign, current);
    },
  );

  api.delete(
    `${API_PREFIX}/me/keys/:serial`,
    {
      config: { access: 'member' },
      schema: { params: ownKeyParamsSchema, response: { 200: revokeKeyResponseSchema } },
    },
    async (request) => {
      const { actor, member } = callerOf(request);
      await keys.revoke(actor, member.callsign, request.params.serial, 'owner');
      return { success: true as const };
    },
  );

  api.get(
    `${API_PREFIX}/people/:callsign/keys`,
    {
      config: { access: 'admin' },
      schema: { params: callsignParamsSchema, response: { 200: keyListResponseSchema } },
    },
    (request) => keys.listOf(request.params.callsign),
  );

  api.delete(
    `${API_PREFIX}/people/:callsign/keys/:serial`,
    {
      config: { access: 'admin' },
      schema: { params: personKeyParamsSchema, response: { 200: revokeKeyResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      await keys.revoke(actor, request.params.callsign, request.params.serial, 'admin');
      return { success: true as const };
    },
  );

  api.post(
    `${API_PREFIX}/people/:callsign/renewal-code`,
    {
      config: { access: 'admin' },
      schema: {
        params: callsignParamsSchema,
        body: renewalCodeBodySchema,
        response: { 200: renewalCodeResponseSchema },
      },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const made = await renewal.create(actor, request.params.callsign, {
        revokeKeys: request.body?.revoke_keys === true,
      });
      return {
        renewal_code: made.code,
        expires_at: made.expiresAt.toISOString(),
        keys_revoked: made.keysRevoked,
      };
    },
  );

  api.get(
    apiPaths.expiring,
    {
      config: { access: 'admin' },
      schema: { querystring: expiringQuerySchema, response: { 200: expiringResponseSchema } },
    },
    (request) => keys.expiring(request.query.days),
  );

  api.get(
    apiPaths.caExpiry,
    { config: { access: 'admin' }, schema: { response: { 200: caExpiryResponseSchema } } },
    async () => {
      const rollover = await context.services.caRollover.status();
      return {
        issuing: expiryOf(context.ca.issuingCertificatePem),
        root: expiryOf(context.ca.rootCertificatePem),
        chain: context.ca.chainDer().map((der, i) => {
          const certificate = new X509Certificate(der);
          return {
            ...expiryOf(certificate),
            signs_members: i === 0,
            self_signed: certificate.issuer === certificate.subject,
          };
        }),
        rollover: {
          state: rollover.state,
          generation: rollover.generation,
          can_roll_over: rollover.canRollOver,
          begun_at: isoOrNull(rollover.begunAt),
          renew_by: isoOrNull(rollover.renewBy),
          finished_at: isoOrNull(rollover.finishedAt),
          previous:
            rollover.previous === undefined
              ? null
              : {
                  generation: rollover.previous.generation,
                  subject: rollover.previous.subject.replaceAll(', ', '\n'),
                  expires_at: iso(rollover.previous.notAfter.getTime()),
                },
          members_on_previous: rollover.membersOnPrevious,
          keys_on_previous: rollover.keysOnPrevious,
          next: rollover.next,
        },
      };
    },
  );
}
