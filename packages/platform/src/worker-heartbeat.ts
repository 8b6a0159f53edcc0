import type { Clock } from './clock.js';

/** What a service reports of one background worker (the admin health page judges it; ADR 026). */
export interface WorkerBeat {
  name: string;
  /** The worker was started in this process and not stopped. */
  running: boolean;
  /** Its poll interval: a healthy worker finishes a pass at least this often. */
  intervalMs: number;
  /** End of the last pass that finished without throwing; null when none has. */
  lastTickAt: Date | null;
  /**
   * Milliseconds since then by this process's clock, or since the worker started when no pass has finished
   * (a worker whose passes all fail ages like a stopped one); -1 when it never started.
   */
  lastTickAgeMs: number;
}

/**
 * Remembers when a worker last finished a pass. Only passes that succeed count: a worker whose every pass
 * throws (its database gone, say) is alive but not working, and its heartbeat ages like a stopped one's.
 */
export class WorkerHeartbeat {
  private lastTickAt: Date | null = null;
  private startedAt: Date | null = null;
  private running = false;

  constructor(
    readonly name: string,
    private readonly clock: Clock,
    readonly intervalMs: number,
  ) {}

  /** The pass to hand the worker's Pacer: the same pass, recording its finish. */
  wrap<T>(pass: () => Promise<T>): () => Promise<T> {
    return async () => {
      const result = await pass();
      this.lastTickAt = this.clock.now();
      return result;
    };
  }

  started(): void {
    this.running = true;
    this.startedAt = this.clock.now();
  }

  stopped(): void {
    this.running = false;
  }

  beat(): WorkerBeat {
    const since = this.lastTickAt ?? this.startedAt;
    return {
      name: this.name,
      running: this.running,
      intervalMs: this.intervalMs,
      lastTickAt: this.lastTickAt,
      lastTickAgeMs: since ? Math.max(0, this.clock.now().getTime() - since.getTime()) : -1,
    };
  }
}
