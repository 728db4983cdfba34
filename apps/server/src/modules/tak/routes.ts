import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiPaths,
  callsignParamsSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
  takReadinessResponseSchema,
  trustPackageQuerySchema,
  trustPackageResponseSchema,
  type TakEnrollmentTokenResponse,
} from '@callsign/contract';
import { NotFoundError } from '../../errors.js';
import { atakEnrollUri, itakServerQr, registrationQr } from '../../tak/tak-enrollment.js';
import type { Actor } from '../auth/actor.js';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';

/**
 * One-scan TAK enrollment on the portal's API: an enrollment token for the
 * caller (their key, or their JWT once approved: a member can connect ATAK without ever
 * installing a browser key) or, for an admin's enrollment station, for any active member; and
 * the trust package. 404 while the enrollment face is off (`PORTAL_TAK_ENROLL_PORT=off`).
 */
export function registerTakEnrollmentRoutes(app: FastifyInstance, context: RouteContext): void {
  const { config } = context;
  const {
    takEnrollmentTokens: tokens,
    takEnrollment: enrollment,
    takEnrollmentFaceTrust: faceTrust,
  } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  const face = () => {
    if (config.takEnroll === undefined) {
      throw new NotFoundError('TAK enrollment is not offered by this portal');
    }
    return config.takEnroll;
  };

  async function tokenFor(callsign: string, actor: Actor): Promise<TakEnrollmentTokenResponse> {
    const { publicPort } = face();
    const issued = await tokens.issue(callsign, actor);
    const { takHost, takPort, deployment } = config;
    const login = { takHost, takPort, username: issued.callsign, token: issued.token };
    return {
      username: issued.callsign,
      token: issued.token,
      expires_at: issued.expiresAt.toISOString(),
      host: takHost,
      port: publicPort,
      atak_uri: atakEnrollUri(login),
      itak_qr: itakServerQr({ deployment, takHost, takPort }),
      registration_qr: registrationQr(login),
      trusted_by_phones: (await faceTrust.current())?.trusted ?? false,
    };
  }

  api.post(
    takPaths.enrollmentToken,
    {
      config: { access: 'member', handsOutKey: true },
      schema: { response: { 200: takEnrollmentTokenResponseSchema } },
    },
    async (request, reply) => {
      const { actor } = callerOf(request);
      return reply.header('cache-control', 'no-store').send(await tokenFor(actor.callsign, actor));
    },
  );

  api.post(
    `${takPaths.enrollmentToken}/:callsign`,
    {
      config: { access: 'admin' },
      schema: {
        params: callsignParamsSchema,
        response: { 200: takEnrollmentTokenResponseSchema },
      },
    },
    async (request, reply) => {
      const { actor } = callerOf(request);
      return reply
        .header('cache-control', 'no-store')
        .send(await tokenFor(request.params.callsign, actor));
    },
  );

  api.get(
    takPaths.trustPackage,
    {
      config: { access: 'member', handsOutKey: true },
      schema: {
        querystring: trustPackageQuerySchema,
        response: {
          200: {
            description: 'The trust package: a zip without any key',
            content: { 'application/zip': { schema: trustPackageResponseSchema } },
          },
        },
      },
    },
    async (request, reply) => {
      const { member } = callerOf(request);
      face();
      const { client } = request.query;
      const zip = await enrollment.trustPackage(member.callsign, client);
      const suffix = client === 'itak' ? '_itak' : '';
      return (reply as FastifyReply)
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename="${member.callsign}_${config.deployment}_trust${suffix}.zip"`,
        )
        .send(Buffer.from(zip));
    },
  );

  api.get(
    takPaths.unnamedTrustPackage,
    {
      config: { access: 'anonymous' },
      schema: {
        querystring: trustPackageQuerySchema,
        response: {
          200: {
            description: 'The trust package without a user name: a zip without any key',
            content: { 'application/zip': { schema: trustPackageResponseSchema } },
          },
        },
      },
    },
    async (request, reply) => {
      face();
      const { client } = request.query;
      const zip = await enrollment.unnamedTrustPackage(client);
      const suffix = client === 'itak' ? '_itak' : '';
      return (reply as FastifyReply)
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename="${config.deployment}_trust${suffix}.zip"`,
        )
        .send(Buffer.from(zip));
    },
  );
}

/** GET admin/tak-readiness (admin): the TAK side as the portal itself can see it. */
export function registerTakReadinessRoutes(app: FastifyInstance, context: RouteContext): void {
  const readiness = context.services.takReadiness;

  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      apiPaths.takReadiness,
      { config: { access: 'admin' }, schema: { response: { 200: takReadinessResponseSchema } } },
      async (request) => {
        callerOf(request);
        return readiness.readiness();
      },
    );
}
