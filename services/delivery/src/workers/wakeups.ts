import type { Logger } from '@routinely/platform';
import pg from 'pg';
import { WAKEUP_CHANNEL } from '../db/wakeups-sql.js';

/**
 * LISTENs on the channel other processes NOTIFY (inside the transaction that made work due, so the signal
 * arrives after commit) and wakes this process's workers. Reconnects after losing its connection.
 */
export class WakeupListener {
  private client: pg.Client | undefined;
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
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => this.onWake(message.payload ?? ''));
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'wakeup listener connection lost');
      this.reconnectLater();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKEUP_CHANNEL}`);
      this.client = client;
    } catch (error) {
      this.logger.warn({ err: error }, 'wakeup listener could not connect');
      await client.end().catch(() => {});
      this.reconnectLater();
    }
  }

  private reconnectLater(): void {
    if (this.stopped) return;
    const old = this.client;
    this.client = undefined;
    void old?.end().catch(() => {});
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect(), 1_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}
