import type { Sql } from '@routinely/db';
import { BUILTIN_MODEL, type ProviderRegistry } from '@routinely/llm';
import { AppError, type Clock, fieldError, notFound, type Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  decisionsOfRun,
  findOwnDecision,
  findOwnRun,
  insertRun,
  joinWaitingRoutineRun,
  latestRun,
  type RunRow,
} from '../../db/runs-sql.js';
import type { ProviderName } from '../providers.js';
import type { SettingsService } from '../settings.js';
import { effectiveProvider } from '../tenant-settings.js';
import type { UsageService } from '../usage.js';
import type { RunEngine } from './run-engine.js';
import { decisionView, runView, syncRunView } from './run-views.js';
import type { TaskGateway } from './task-gateway.js';

const DAY_MS = 86_400_000;
/** Contract: the window defaults to now .. now + 14 days and spans at most 90 days. */
const DEFAULT_WINDOW_MS = 14 * DAY_MS;
export const MAX_WINDOW_MS = 90 * DAY_MS;
/**
 * The farthest a requested run's window reaches (a routine's occurrences name their own): the contract's longest
 * routine horizon (60 days) plus two days, as the horizon's last local date can end up to a day and 14 hours
 * after now in UTC.
 */
const MAX_REQUESTED_WINDOW_MS = 62 * DAY_MS;
/** Runs of up to this many tasks are answered synchronously (contract). */
const SYNC_RUN_LIMIT = 10;
/** Tasks one run may hold, descendants included (the task service's gRPC reads at most 1,000 at once). */
const MAX_RUN_TASKS = 1_000;
/**
 * Tasks a routine run takes in at most by joining requests: three routines' 14-day fills of a root and three
 * steps (180), and at most 13 one-task routines' 15 days, so a day's part (one occurrence per routine) stays
 * within the solver's exact search.
 */
const MAX_JOINED_ROUTINE_TASKS = 200;

export interface RunRequest {
  task_ids: string[];
  provider?: ProviderName | undefined;
  window_start?: Date | undefined;
  window_end?: Date | undefined;
  dry_run?: boolean | undefined;
}

export interface RunServiceDeps {
  clock: Clock;
  db: Sql;
  settings: SettingsService;
  usage: UsageService;
  providers: ProviderRegistry;
  tasks: TaskGateway;
  engine: RunEngine;
  leaseMs: number;
  /** Wakes the run worker (a queued run waits for no poll). */
  wake(): void;
}

/** Starting and reading scheduling runs and their decisions. */
export class RunService {
  constructor(private readonly deps: RunServiceDeps) {}

  /** The window of a request: defaults, then the contract's limits (ahead of now, at most 90 days). */
  window(request: Pick<RunRequest, 'window_start' | 'window_end'>): { start: Date; end: Date } {
    const now = this.deps.clock.now();
    const start = request.window_start ?? now;
    const end = request.window_end ?? new Date(start.getTime() + DEFAULT_WINDOW_MS);
    if (end <= start) throw fieldError(['body', 'window_end'], 'window_end must be after window_start');
    if (end.getTime() - start.getTime() > MAX_WINDOW_MS)
      throw fieldError(['body', 'window_end'], 'the window spans at most 90 days');
    if (end <= now) throw fieldError(['body', 'window_end'], 'the window must lie ahead of now');
    return { start, end };
  }

  /** The window of a run nobody asked a window for: now .. the later of the default and `needed`, capped. */
  private requestedWindow(needed: Date | undefined): { start: Date; end: Date } {
    const now = this.deps.clock.now();
    const end = Math.min(
      Math.max(now.getTime() + DEFAULT_WINDOW_MS, needed?.getTime() ?? 0),
      now.getTime() + MAX_REQUESTED_WINDOW_MS,
    );
    return { start: now, end: new Date(end) };
  }

  /** The effective provider of a run, refused when unavailable (422) or, for a model, at the hard cap (429). */
  async provider(
    owner: Owner,
    requested: ProviderName | undefined,
    options: { lenient?: boolean } = {},
  ): Promise<{ name: ProviderName; model: string }> {
    const settings = await this.deps.settings.get(owner);
    const policy = await this.deps.settings.policyOf(owner);
    const name = effectiveProvider(policy, requested, settings.llm_provider_default);
    const config = this.deps.providers.get(name);
    // A run nobody waits on (an import's auto_schedule) is never refused: the solver stands in.
    if (options.lenient && !config.available) return { name: 'builtin', model: BUILTIN_MODEL };
    if (options.lenient) return { name, model: config.model };
    if (!config.available) {
      throw new AppError('provider_unavailable', `The provider ${name} is not configured on this server`, {
        errors: [{ loc: ['body', 'provider'], msg: `${name} is unavailable`, type: 'provider_unavailable' }],
      });
    }
    if (name !== 'builtin' && !(await this.deps.usage.status(owner)).allowed) {
      throw new AppError('quota_exceeded', "Today's model spend reached the hard cap; the builtin solver still runs");
    }
    return { name, model: config.model };
  }

  /**
   * Every id must be a task of the caller: the first that is not is 404, named. Answers the ids the run
   * places: the requested tasks and their descendants (scheduling a parent places its subtree).
   */
  async checkTasks(owner: Owner, ids: readonly string[]): Promise<string[]> {
    const { tasks, missingIds } = await this.deps.tasks.getTasks(owner, ids, { includeDescendants: true });
    if (missingIds.length > 0) {
      throw new AppError('not_found', `Task ${missingIds[0]} not found`, {
        errors: [
          {
            loc: ['body', 'task_ids', ids.indexOf(missingIds[0] as string)],
            msg: `task ${missingIds[0]} not found`,
            type: 'not_found',
          },
        ],
      });
    }
    // The task service reads at most 1,000 tasks per call; a run re-reads all of its tasks every batch.
    if (tasks.length > MAX_RUN_TASKS) {
      throw fieldError(['body', 'task_ids'], `with their descendants these are more than ${MAX_RUN_TASKS} tasks`);
    }
    return tasks.map((t) => t.id);
  }

  /** POST /schedule: checks, then runs up to 10 tasks now and queues more for the worker. */
  async start(owner: Owner, request: RunRequest) {
    const window = this.window(request);
    const ids = await this.checkTasks(owner, [...new Set(request.task_ids)]);
    const provider = await this.provider(owner, request.provider);
    return this.launch(owner, { ids, window, provider, dryRun: request.dry_run ?? false });
  }

  /**
   * An import's auto_schedule (the task service's `task.import.schedule_requested`): a queued background run
   * under the id the task service chose and already recorded on the import, with the user's effective provider
   * (at the hard cap each batch falls back to the solver). The tasks are the ones the import just created, so
   * they are not read here (a task deleted since is left out by the run); a second copy of the request
   * changes nothing. Runs in the consumer's transaction; the worker is woken once it commits.
   *
   * `windowEnd` is where the request's tasks need the window to reach (a routine's: its last occurrence's
   * deadline); the run's window ends there when that is past the default, at most MAX_REQUESTED_WINDOW_MS ahead.
   */
  async queueRequested(
    sql: Sql,
    owner: Owner,
    runId: string,
    taskIds: readonly string[],
    options: { routine?: boolean; windowEnd?: Date | undefined } = {},
  ): Promise<void> {
    const window = this.requestedWindow(options.windowEnd);
    const ids = [...new Set(taskIds)];
    // A routine's request joins the owner's routine run still waiting in the queue, up to a size whose parts
    // stay small (ADR 055): one run's round trips place what several fills asked for, and the solver places
    // each occurrence's window apart.
    if (options.routine && (await joinWaitingRoutineRun(sql, owner, ids, window.end, MAX_JOINED_ROUTINE_TASKS))) return;
    // A routine's occurrences are placed by the solver at no model cost (contract "routines").
    const provider = options.routine
      ? { name: 'builtin' as const, model: BUILTIN_MODEL }
      : await this.provider(owner, undefined, { lenient: true });
    await insertRun(
      sql,
      {
        id: runId,
        tenant_id: owner.tenantId,
        user_id: owner.userId,
        status: 'queued',
        kind: options.routine ? 'routine' : 'schedule',
        root_task_id: null,
        provider: provider.name,
        model: provider.model,
        task_ids: ids,
        window_start: window.start,
        window_end: window.end,
        dry_run: false,
        progress_total: ids.length,
        attempts: 0,
        lease_until: null,
        created_by: owner.userId,
        created_at: this.deps.clock.now(),
        started_at: null,
      },
      { ifAbsent: true },
    );
  }

  /** Writes the run and executes it (synchronous) or queues it (background). */
  async launch(
    owner: Owner,
    spec: {
      ids: string[];
      window: { start: Date; end: Date };
      provider: { name: ProviderName; model: string };
      dryRun: boolean;
      kind?: RunRow['kind'];
      rootTaskId?: string;
    },
  ) {
    const now = this.deps.clock.now();
    const sync = spec.ids.length <= SYNC_RUN_LIMIT;
    const id = uuidv7();
    await insertRun(this.deps.db, {
      id,
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      // A synchronous run is leased to this request: if the process dies, the worker finishes it.
      status: sync ? 'running' : 'queued',
      kind: spec.kind ?? 'schedule',
      root_task_id: spec.rootTaskId ?? null,
      provider: spec.provider.name,
      model: spec.provider.model,
      task_ids: spec.ids,
      window_start: spec.window.start,
      window_end: spec.window.end,
      dry_run: spec.dryRun,
      progress_total: spec.ids.length,
      attempts: sync ? 1 : 0,
      lease_until: sync ? new Date(now.getTime() + this.deps.leaseMs) : null,
      created_by: owner.userId,
      created_at: now,
      started_at: sync ? now : null,
    });
    if (!sync) {
      this.deps.wake();
      return { sync: false as const, body: { run_id: id, status: 'queued' as const } };
    }
    await this.deps.engine.execute(id);
    const sql = this.deps.db;
    const run = (await findOwnRun(sql, owner, id)) as RunRow;
    return { sync: true as const, body: syncRunView(run, await decisionsOfRun(sql, id)) };
  }

  async get(owner: Owner, id: string) {
    const sql = this.deps.db;
    const run = await findOwnRun(sql, owner, id);
    if (!run) throw notFound('Run');
    return runView(run, await decisionsOfRun(sql, id));
  }

  async latest(owner: Owner) {
    const sql = this.deps.db;
    const run = await latestRun(sql, owner);
    if (!run) throw notFound('Run');
    return runView(run, await decisionsOfRun(sql, run.id));
  }

  async decision(owner: Owner, id: string) {
    const row = await findOwnDecision(this.deps.db, owner, id);
    if (!row) throw notFound('Decision');
    return decisionView(row);
  }
}
