import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { rowsFromCsv } from '../../domain/import/csv.js';
import type { Importer } from '../../domain/import/importer.js';
import { type ImportJobs, toJobRead } from '../../domain/import/jobs.js';
import {
  importBody,
  importJobAccepted,
  importJobCancelled,
  importJobCommitBody,
  importJobParams,
  importJobRead,
  importQuery,
  importResult,
} from './schemas.js';

const tags = ['bulk-import'];
const permission = 'SERVICE_TASK_BULK_IMPORT' as const;

/** Rows and options from a JSON body or a CSV text body (options then come from the query string). */
function readImport(body: z.output<typeof importBody>, query: z.output<typeof importQuery>) {
  if (typeof body === 'string') {
    return { rows: rowsFromCsv(body), commit: query.commit ?? true, autoSchedule: query.auto_schedule ?? false };
  }
  return { rows: body.rows, commit: body.commit, autoSchedule: body.auto_schedule };
}

export function importRoutes(importer: Importer, jobs: ImportJobs): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/tasks/bulk-import',
      {
        config: { permission },
        schema: {
          operationId: 'importTasks',
          description:
            'Up to 100 rows as JSON, or CSV with a header row (`text/csv`). A commit is all-or-nothing; `commit: false` only validates. More rows are 413 (use an import job); over the per-user import quota is 429 `quota_exceeded`.',
          tags,
          summary: 'Import up to 100 rows at once (JSON or text/csv); commit: false is a dry run',
          body: importBody,
          consumes: ['application/json', 'text/csv'],
          querystring: importQuery,
          response: {
            ...problemAnswers({
              payload_too_large: 'more than 100 rows (use an import job)',
              quota_exceeded: 'over the per-user import quota (per hour or per day)',
            }),
            200: importResult,
          },
        },
      },
      async (request) => {
        const input = readImport(request.body, request.query);
        return importer.importSync(ownerOf(request), input.rows, {
          commit: input.commit,
          autoSchedule: input.autoSchedule,
        });
      },
    );

    r.post(
      '/service/tasks/bulk-import/jobs',
      {
        config: { permission },
        bodyLimit: 32 * 1024 * 1024,
        schema: {
          operationId: 'createImportJob',
          description:
            'Answers 202 with `job_id`; poll `GET /api/v1/service/tasks/bulk-import/jobs/{job_id}` until the job is `parsed`, then commit it.',
          tags,
          summary: 'Queue a large import; a background worker parses it',
          body: importBody,
          consumes: ['application/json', 'text/csv'],
          querystring: importQuery,
          response: {
            ...problemAnswers({
              payload_too_large: 'more rows than an import job takes',
              quota_exceeded: 'over the per-user import quota (per hour or per day)',
            }),
            202: importJobAccepted,
          },
        },
      },
      async (request, reply) => {
        const input = readImport(request.body, request.query);
        const job = await jobs.create(ownerOf(request), input.rows);
        return reply.status(202).send({ job_id: job.id, status: job.status });
      },
    );

    r.get(
      '/service/tasks/bulk-import/jobs/:job_id',
      {
        config: { permission },
        schema: {
          operationId: 'getImportJob',
          tags,
          summary: 'Status of an import job',
          params: importJobParams,
          response: { 200: importJobRead },
        },
      },
      async (request) => toJobRead(await jobs.get(ownerOf(request), request.params.job_id)),
    );

    r.post(
      '/service/tasks/bulk-import/jobs/:job_id/commit',
      {
        config: { permission },
        schema: {
          operationId: 'commitImportJob',
          tags,
          summary: 'Commit a parsed job (all or nothing); the worker writes it',
          params: importJobParams,
          body: importJobCommitBody,
          response: {
            ...problemAnswers({ conflict: 'the job is not `parsed`, or has invalid rows' }),
            202: importJobRead,
          },
        },
      },
      async (request, reply) => {
        const job = await jobs.commit(ownerOf(request), request.params.job_id, request.body?.auto_schedule ?? false);
        return reply.status(202).send(toJobRead(job));
      },
    );

    r.delete(
      '/service/tasks/bulk-import/jobs/:job_id',
      {
        config: { permission },
        schema: {
          response: {
            204: importJobCancelled,
            ...problemAnswers({ conflict: 'the job is committed already' }),
          },
          operationId: 'cancelImportJob',
          tags,
          summary: 'Cancel an import job',
          params: importJobParams,
        },
      },
      async (request, reply) => {
        await jobs.cancel(ownerOf(request), request.params.job_id);
        return reply.status(204).send(null);
      },
    );
  };
}
