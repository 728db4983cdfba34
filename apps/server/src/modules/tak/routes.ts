import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiPaths,
  callsignParamsSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
  takReadinessResponseSchema,
  trustPackageResponseSchema,
  type TakEnrollmentTokenResponse,
} from '@callsign/contract';
import { NotFoundError } from '../../errors.js';
import { atakEnrollUri, itakServerQr } from '../../tak/tak-enrollment.js';
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
  const { takEnrollmentTokens: tokens, takEnrollment: enrollment } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  const face = () => {
    if (config.takEnroll === undefined) {
      throw new NotFoundError('TAK enrollment is not offered by this portal');
    }
    return config.takEnroll;
  };

  async function tokenFor(callsign: string, actor: Actor): Promise<TakEnrollmentTokenResponse> {
    const { publicPort, publiclyTrusted } = face();
    const issued = await tokens.issue(callsign, actor);
    const { takHost, takPort, deployment } = config;
    return {
      username: issued.callsign,
      token: issued.token,
      expires_at: issued.expiresAt.toISOString(),
      host: takHost,
      port: publicPort,
      atak_uri: atakEnrollUri({ takHost, takPort, username: issued.callsign, token: issued.token }),
      itak_qr: itakServerQr({ deployment, takHost, takPort }),
      // Stand-in until issue 28's server part (branch tak28) lands: the §14 registration form.
      registration_qr: JSON.stringify({
        type: 'registration',
        serverCredentials: { connectionString: `${takHost}:${String(takPort)}:ssl` },
        userCredentials: { username: issued.callsign, password: issued.token },
      }),
      trusted_by_phones: publiclyTrusted,
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
      const zip = await enrollment.trustPackage(member.callsign);
      return (reply as FastifyReply)
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename="${member.callsign}_${config.deployment}_trust.zip"`,
        )
        .send(Buffer.from(zip));
    },
  );

  api.get(
    takPaths.unnamedTrustPackage,
    {
      config: { access: 'anonymous' },
      schema: {
        response: {
          200: {
            description: 'The trust package without a user name: a zip without any key',
            content: { 'application/zip': { schema: trustPackageResponseSchema } },
          },
        },
      },
    },
    async (_request, reply) => {
      face();
      const zip = await enrollment.unnamedTrustPackage();
      return (reply as FastifyReply)
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${config.deployment}_trust.zip"`)
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
