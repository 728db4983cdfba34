import { Readable, Transform, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AUDIT_CSV_COLUMNS,
  apiPaths,
  auditCsvResponseSchema,
  auditFilterSchema,
  auditListQuerySchema,
  auditListResponseSchema,
  type AuditEventAnswer,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import type { AuditEvent } from './repository.js';
import { auditFilterOf } from './service.js';

function present(event: AuditEvent): AuditEventAnswer {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    actor: event.actor,
    action: event.action,
    target: event.target,
    outcome: event.outcome,
    client_address: event.clientAddress,
    detail: event.detail,
  };
}

/** One CSV record per event; the detail as its JSON text. */
function csvRecord(event: AuditEvent): Record<(typeof AUDIT_CSV_COLUMNS)[number], string | null> {
  return {
    id: event.id,
    time: new Date(event.at).toISOString(),
    actor: event.actor,
    action: event.action,
    target: event.target,
    outcome: event.outcome,
    client_address: event.clientAddress,
    detail: event.detail === null ? null : JSON.stringify(event.detail),
  };
}

function isFailure(error: NodeJS.ErrnoException | null | undefined): boolean {
  return error != null && error.code !== 'ERR_STREAM_PREMATURE_CLOSE';
}

/** GET admin/audit (a page, newest first) and GET admin/audit.csv (the filtered range). */
export function registerAuditRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config } = context;
  const { audit } = context.services;

  app.get(
    apiPaths.audit,
    {
      config: { access: 'admin' },
      schema: {
        querystring: auditListQuerySchema,
        response: { 200: auditListResponseSchema },
      },
    },
    async (request) => {
      callerOf(request);
      const page = await audit.page(request.query);
      return { events: page.events.map(present), next_before: page.nextBefore };
    },
  );

  app.get(
    apiPaths.auditCsv,
    {
      // The export records an audit.export event with the caller's filter.
      config: { access: 'admin', writes: true },
      schema: {
        querystring: auditFilterSchema,
        response: {
          200: {
            description: 'Every event the filter selects, newest first, as CSV (UTF-8, BOM)',
            content: { 'text/csv': { schema: auditCsvResponseSchema } },
          },
        },
      },
    },
    async (request, reply) => {
      const { actor } = callerOf(request);
      const events = await audit.export(actor, auditFilterOf(request.query));
      // Cells that a spreadsheet would run as a formula (= + - @ first) get a leading quote.
      const csv = stringify({
        header: true,
        bom: true,
        columns: [...AUDIT_CSV_COLUMNS],
        escape_formulas: true,
      });
      const records = new Transform({
        objectMode: true,
        transform(event: AuditEvent, _encoding, done) {
          done(null, csvRecord(event));
        },
      });
      // Pulled page by page as the client reads: a slow download holds no rows in memory.
      pipeline(Readable.from(events), records, csv, (error) => {
        // Called with nothing when the CSV is complete. A client that goes away mid-download
        // closes it early (ERR_STREAM_PREMATURE_CLOSE), which is no failure either.
        if (isFailure(error)) request.log.error({ err: error }, 'audit export failed');
      });
      const day = context.now().toISOString().slice(0, 10);
      return (reply as FastifyReply)
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${config.deployment}-audit-${day}.csv"`,
        )
        .header('cache-control', 'no-store')
        .send(csv);
    },
  );
}
