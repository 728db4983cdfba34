import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  callsignParamsSchema,
  presetResponseSchema,
  presetSchema,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import type { MemberPreset } from './service.js';

const presetAnswer = ({ callsign, preset }: MemberPreset) => ({ callsign, ...preset });

/** A member's TAK preset: read and set by admins, read by the member (docs/api.md, "Onboarding a unit"). */
export function registerPresetRoutes(app: FastifyInstance, context: RouteContext): void {
  const { presets } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const personPreset = `${API_PREFIX}/people/:callsign/preset`;

  api.get(
    personPreset,
    {
      config: { access: 'admin' },
      schema: { params: callsignParamsSchema, response: { 200: presetResponseSchema } },
    },
    async (request) => presetAnswer(await presets.get(request.params.callsign)),
  );

  api.put(
    personPreset,
    {
      config: { access: 'admin' },
      schema: {
        params: callsignParamsSchema,
        body: presetSchema,
        response: { 200: presetResponseSchema },
      },
    },
    async (request) => {
      const { actor } = callerOf(request);
      return presetAnswer(await presets.set(actor, request.params.callsign, request.body));
    },
  );

  api.get(
    apiPaths.myPreset,
    { config: { access: 'member' }, schema: { response: { 200: presetResponseSchema } } },
    async (request) => {
      const { member } = callerOf(request);
      return presetAnswer(await presets.get(member.callsign));
    },
  );
}
