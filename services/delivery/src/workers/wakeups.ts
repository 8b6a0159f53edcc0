import type { Logger } from '@routinely/platform';
import { listenForWakeups, type WakeupConnection } from '../db/wakeups-sql.js';

/**
 * LISTENs on the channel other processes NOTIFY (inside the transaction that made work due, so the signal
 * arrives after commit) and wakes this process's workers. Reconnects after losing its connection.
 */
export class WakeupListener {
  private connection: WakeupConnection | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly onWake: (payload: string) => void,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    try {
      this.connection = await listenForWakeups(this.url, this.onWake, (error) => {
        this.logger.warn({ err: error }, 'wakeup listener connection lost');
        this.reconnectLater();
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'wakeup listener could not connect');
      this.reconnectLater();
    }
  }

  private reconnectLater(): void {
    if (this.stopped) return;
    const old = this.connection;
    this.connection = undefined;
    void old?.close().catch(() => {});
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect(), 1_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.connection?.close().catch(() => {});
    this.connection = undefined;
  }
}
