import type { Logger } from '@nestjs/common';
import pg from 'pg';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export interface PgNotificationListenerOptions {
  url: string;
  /** The NOTIFY channel (an identifier: letters, digits, underscores). */
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotification(payload: string): void;
  /** Called after every (re)connection: notifications sent while the connection was down were missed. */
  onConnected?(): void;
}

/**
 * One dedicated PostgreSQL connection that LISTENs on a channel and reconnects with backoff when it drops. Used by
 * the confirmation waiter and the run event stream, each on its own channel.
 */
export class PgNotificationListener {
  private client: pg.Client | null = null;
  private listening = false;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelay = RECONNECT_MIN_MS;
  private closed = false;

  constructor(private readonly opts: PgNotificationListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/i.test(opts.channel)) throw new Error(`invalid NOTIFY channel name "${opts.channel}"`);
  }

  /** True while the LISTEN connection is up. */
  get isListening(): boolean {
    return this.listening;
  }

  async start(): Promise<void> {
    this.closed = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.url, application_name: this.opts.applicationName });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) {
        this.client = null;
        this.listening = false;
      }
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.opts.logger.warn(
        `LISTEN ${this.opts.channel} connection lost (${err?.message ?? 'closed'}); ` +
          `reconnecting in ${this.reconnectDelay} ms`,
      );
      this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelay);
      this.reconnectTimer.unref();
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
    };
    client.on('notification', (msg) => {
      if (msg.channel === this.opts.channel && msg.payload) this.opts.onNotification(msg.payload);
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- callbacks set `lost` during the awaits
      if (this.closed || lost) return;
      this.listening = true;
      this.reconnectDelay = RECONNECT_MIN_MS;
      this.opts.onConnected?.();
    } catch (err) {
      onLost(err as Error);
    }
  }
}
