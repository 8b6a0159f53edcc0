import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { observeAtScrape } from './metrics.js';
import { Pacer, type PassResult } from './pacer.js';
import { type WorkerBeat, WorkerHeartbeat } from './worker-heartbeat.js';

/** What a service says of one background worker; `defineWorker` does the rest. */
export interface WorkerSpec {
  /** Unique within the service; the health page and the metrics name it. */
  name: string;
  /** The safety-net poll: a healthy worker finishes a pass at least this often. */
  pollMs: number;
  /** One pass over due rows (claimed with leases); `more` runs the next at once. */
  pass: () => Promise<PassResult>;
}

/**
 * A background worker: its pacer (passes when work is due, on `wake` and at least every `pollMs`) and its
 * heartbeat (when a pass last succeeded) in one, so every worker of every service reports the same way.
 */
export interface Worker {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  /** Runs a pass now (after a commit that made work due, or on a notification from another process). */
  wake(): void;
  /** Wakes the worker and resolves once a pass that began after this call has ended. */
  wakeAndWait(): Promise<void>;
  beat(): WorkerBeat;
}

export function defineWorker(spec: WorkerSpec, deps: { clock: Clock; logger: Logger }): Worker {
  const heartbeat = new WorkerHeartbeat(spec.name, deps.clock, spec.pollMs);
  const pacer = new Pacer(spec.name, heartbeat.wrap(spec.pass), deps.clock, spec.pollMs, deps.logger);
  return {
    name: spec.name,
    start: () => {
      heartbeat.started();
      pacer.start();
    },
    stop: async () => {
      await pacer.stop();
      heartbeat.stopped();
    },
    wake: () => pacer.wake(),
    wakeAndWait: () => pacer.wakeAndWait(),
    beat: () => heartbeat.beat(),
  };
}

const WORKER_PASS_AGE = {
  name: 'routinely_worker_last_pass_age_seconds',
  help: 'seconds since the worker last finished a pass without error (since its start when none has; -1: not running)',
  labelNames: ['service', 'worker'],
} as const;

/** Publishes each worker's heartbeat age at scrape time; answers the unregister (the host calls it at stop). */
export function observeWorkers(service: string, workers: readonly Worker[]): () => void {
  const removers = workers.map((worker) =>
    observeAtScrape(WORKER_PASS_AGE, { service, worker: worker.name }, () => {
      const beat = worker.beat();
      return beat.running ? beat.lastTickAgeMs / 1000 : -1;
    }),
  );
  return () => {
    for (const remove of removers) remove();
  };
}
