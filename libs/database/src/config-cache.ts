import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { DatabaseTarget } from './data-source.js';
import { DATABASE_TARGET } from './database-target.module.js';
import { PgNotificationListener } from './pg-notification-listener.js';

/** The NOTIFY channel of configuration changes; the payload is the org id, or `*` for every org. */
export const CONFIG_CHANGED_CHANNEL = 'warden_config';
/**
 * The longest an entry is used without a notification: the bound on staleness should a LISTEN connection hang silently.
 */
const MAX_AGE_MS = 60_000;

interface Entry {
  value: Promise<unknown>;
  at: number;
}

/**
 * The org configuration every run reads (its agent, the org's hooks, connector catalog, MCP servers, read-only flag),
 * kept per instance so a run does not read it again on each turn. Database triggers send `warden_config` on every
 * change of those tables (migration 1766000000000: whoever writes, through the API or by hand), and this cache drops
 * the org's entries when told. Fail closed on staleness: while the LISTEN connection is down (and on PGlite, which
 * has no cross-session NOTIFY) nothing is cached; an entry loaded while a change was announced is not kept.
 */
@Injectable()
export class ConfigCache implements OnModuleInit, OnModuleDestroy {
  private readonly entries = new Map<string, Map<string, Entry>>();
  /** Bumped per org on each change notice (and for all on reconnect): a load that began before it is not kept. */
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  private readonly listener: PgNotificationListener | null;
  private readonly embedded: boolean;
  private readonly followers: Array<(orgId: string) => void> = [];
  /** Loads that went to the database (a counter for tests and /metrics). */
  loads = 0;

  constructor(@Inject(DATABASE_TARGET) target: DatabaseTarget) {
    this.embedded = target.embedded;
    this.listener = target.embedded
      ? null
      : new PgNotificationListener({
          url: target.url,
          channel: CONFIG_CHANGED_CHANNEL,
          applicationName: `warden-${CONFIG_CHANGED_CHANNEL}`,
          logger: new Logger(ConfigCache.name),
          onNotification: (orgId) => this.invalidate(orgId),
          // Changes made while the connection was down were not announced to us.
          onConnected: () => this.invalidate('*'),
        });
  }

  onModuleInit(): Promise<void> {
    return this.listener?.start() ?? Promise.resolve();
  }

  onModuleDestroy(): Promise<void> {
    return this.listener?.stop() ?? Promise.resolve();
  }

  /** The cached value of `key` for the org, or `load()`'s (kept unless a change was announced meanwhile). */
  get<T>(orgId: string, key: string, load: () => Promise<T>): Promise<T> {
    if (!this.listener?.isListening) {
      this.loads++;
      return load();
    }
    const org = this.entries.get(orgId);
    const hit = org?.get(key);
    if (hit && Date.now() - hit.at < MAX_AGE_MS) return hit.value as Promise<T>;
    const generation = this.generationOf(orgId);
    this.loads++;
    const value = load();
    const entry: Entry = { value, at: Date.now() };
    const entries = org ?? new Map<string, Entry>();
    entries.set(key, entry);
    this.entries.set(orgId, entries);
    value.then(
      () => {
        if (this.generationOf(orgId) !== generation) this.drop(orgId, key, entry);
      },
      () => this.drop(orgId, key, entry),
    );
    return value;
  }

  /**
   * True when every change is announced to this instance: the LISTEN connection is up, or the database is embedded
   * (one process, whose writers call `invalidate` themselves). Other caches of org state trust their entries only then.
   */
  get announcesChanges(): boolean {
    return this.embedded || (this.listener?.isListening ?? false);
  }

  /** Also tells `follower` of every change notice (an org id, or `*` after a reconnection). */
  follow(follower: (orgId: string) => void): void {
    this.followers.push(follower);
  }

  /** Forgets what is cached for the org (`*`: for every org). */
  invalidate(orgId: string): void {
    for (const follower of this.followers) follower(orgId);
    if (orgId === '*') {
      this.epoch++;
      this.entries.clear();
      this.generations.clear();
      return;
    }
    this.generations.set(orgId, (this.generations.get(orgId) ?? 0) + 1);
    this.entries.delete(orgId);
  }

  private generationOf(orgId: string): string {
    return `${this.epoch}.${this.generations.get(orgId) ?? 0}`;
  }

  private drop(orgId: string, key: string, entry: Entry): void {
    const org = this.entries.get(orgId);
    if (org?.get(key) === entry) org.delete(key);
  }
}
