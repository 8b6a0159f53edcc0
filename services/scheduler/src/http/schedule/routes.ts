import { answerHeaders, ownerOf, problemAnswers, problemSchema } from '@routinely/platform';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { OverrideService } from '../../domain/runs/overrides.js';
import type { ReflowService } from '../../domain/runs/reflow.js';
import type { RunService } from '../../domain/runs/runs.js';
import {
  decisionIdParams,
  decisionOut,
  overrideAliasBody,
  overrideBody,
  queuedRunOut,
  reflowRequest,
  runIdParams,
  runOut,
  runRequest,
  syncRunOut,
} from './schemas.js';

const tags = ['scheduling'];
const permission = 'SERVICE_SCHEDULE_RUN';
/** A queued run's answer: `Location` names the run to poll. */
const queuedRun = answerHeaders(queuedRunOut, {
  Location: {
    description: 'The run to poll (`GET` it until `completed` or `failed`), on the mount the request came in on',
    example: '/api/v1/service/schedule/runs/0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7a',
  },
});
const errors = problemAnswers({
  not_found: "a task id that is not the caller's (named in the detail)",
  conflict: 'a task changed state while the run applied its slot',
  quota_exceeded: "a language-model run when today's spend reached the hard cap (builtin runs are never refused)",
  provider_unavailable: 'the provider asked for is not configured on this server',
});

/** A run answered now (200) or queued for the worker (202 with where to poll). */
function answerRun(reply: FastifyReply, started: Awaited<ReturnType<RunService['start']>>, mount: string) {
  if (started.sync) return reply.status(200).send(started.body);
  return reply
    .status(202)
    .header('Location', `${mount}/service/schedule/runs/${started.body.run_id}`)
    .send(started.body);
}

/** The mount the request came in on (`/api/v1` or `/v1`), so `Location` points where the client calls. */
const mountOf = (url: string) => (url.startsWith('/v1/') ? '/v1' : '/api/v1');

/** /schedule/*: runs, their decisions, overrides and reflow of the caller. */
export function scheduleRoutes(
  runs: RunService,
  overrides: OverrideService,
  reflow: ReflowService,
): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/schedule',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'createScheduleRun',
          description:
            "Up to 10 tasks are placed now (200 with the decisions); more are queued: 202 with `Location` naming the run, to poll until `completed` or `failed`. The window defaults to now .. now + 14 days and spans at most 90 days. A language-model run past today's hard spend cap is 429 `quota_exceeded`; `builtin` runs are never refused. `dry_run` stores decisions without applying them.",
          summary: 'Schedule tasks: up to 10 at once (200), more in the background (202 + Location)',
          body: runRequest,
          response: { 200: syncRunOut, 202: queuedRun, ...errors },
        },
      },
      async (request, reply) =>
        answerRun(reply, await runs.start(ownerOf(request), request.body), mountOf(request.url)),
    );

    r.get(
      '/service/schedule/runs/latest',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'getLatestScheduleRun',
          summary: "The caller's most recent run (404 when none)",
          response: { 200: runOut, 404: problemSchema },
        },
      },
      async (request) => runs.latest(ownerOf(request)),
    );

    r.get(
      '/service/schedule/runs/:run_id',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'getScheduleRun',
          summary: 'One run with its progress and all its decisions',
          params: runIdParams,
          response: { 200: runOut, 404: problemSchema },
        },
      },
      async (request) => runs.get(ownerOf(request), request.params.run_id),
    );

    r.get(
      '/service/schedule/decisions/:decision_id',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'getScheduleDecision',
          summary: 'One decision',
          params: decisionIdParams,
          response: { 200: decisionOut, 404: problemSchema },
        },
      },
      async (request) => runs.decision(ownerOf(request), request.params.decision_id),
    );

    r.post(
      '/service/schedule/decisions/:decision_id/override',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'overrideScheduleDecision',
          description:
            'Appends an `override` decision superseding this one and applies it at once. End must be after start (at most 31 days); a slot outside working hours or in a no-go window is allowed and listed in `warnings`.',
          summary: 'Append a decision with the slot the user chose, applied at once (warnings when it breaks a rule)',
          params: decisionIdParams,
          body: overrideBody,
          response: { 201: decisionOut, 404: problemSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await overrides.override(ownerOf(request), request.params.decision_id, request.body)),
    );

    r.post(
      '/service/schedule/override',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'overrideScheduleDecisionByBody',
          summary: 'Alias of the decision override with decision_id in the body',
          body: overrideAliasBody,
          response: { 201: decisionOut, 404: problemSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await overrides.override(ownerOf(request), request.body.decision_id, request.body)),
    );

    r.post(
      '/service/schedule/reflow',
      {
        config: { permission },
        schema: {
          tags,
          operationId: 'reflowScheduleSubtree',
          description:
            "Keeps the root's slot and re-places its descendants inside it; answered like `POST /schedule` (200, or 202 with `Location`). A root without a slot is 409 `not_scheduled`.",
          summary: "Re-place a scheduled root's descendants inside its slot (409 not_scheduled without one)",
          body: reflowRequest,
          response: {
            ...problemAnswers({ not_scheduled: 'the root task has no slot to reflow inside' }),
            200: syncRunOut,
            202: queuedRun,
            ...errors,
          },
        },
      },
      async (request, reply) =>
        answerRun(reply, await reflow.reflow(ownerOf(request), request.body), mountOf(request.url)),
    );
  };
}
