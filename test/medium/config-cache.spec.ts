import { ConfigCache } from '@warden/database';
import { until } from '../support/eventually.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * The per-instance cache of run configuration on a real database: a change made anywhere (here: plain SQL on another
 * connection, as an operator or another instance would) reaches it through the triggers' NOTIFY; nothing is cached
 * while it cannot hear about changes.
 */
describe('ConfigCache (medium)', () => {
  let db: MediumDb;
  let cache: ConfigCache;
  const readOnly = async () => {
    const [row] = await db.dataSource.query(`SELECT read_only FROM orgs WHERE id = $1`, [db.orgId]);
    return row.read_only as boolean;
  };
  beforeAll(async () => {
    db = await mediumDb();
    cache = new ConfigCache({ url: db.url, embedded: false, close: () => Promise.resolve() });
    await cache.onModuleInit();
  });
  afterAll(async () => {
    await cache.onModuleDestroy();
    await db.close();
  });

  it('serves a value from memory until the table changes, then reads the new one', async () => {
    expect(await cache.get(db.orgId, 'org', readOnly)).toBe(false);
    const loads = cache.loads;
    expect(await cache.get(db.orgId, 'org', readOnly)).toBe(false);
    expect(cache.loads).toBe(loads);

    await db.dataSource.query(`UPDATE orgs SET read_only = true WHERE id = $1`, [db.orgId]);
    // The trigger's NOTIFY arrives at commit; until then the cached value may be served.
    await until('the change to reach the cache', async () => await cache.get(db.orgId, 'org', readOnly));
    expect(cache.loads).toBe(loads + 1);
  });

  it('a change of connector actions (no org column) drops every org', async () => {
    await cache.get(db.orgId, 'connector_tools', () => Promise.resolve('old'));
    const [{ id }] = await db.dataSource.query(
      `INSERT INTO connectors (org_id, name, base_url) VALUES ($1, 'c', 'http://x') RETURNING id`,
      [db.orgId],
    );
    await until(
      'the connector insert to reach the cache',
      async () => (await cache.get(db.orgId, 'connector_tools', () => Promise.resolve('new'))) === 'new',
    );
    await cache.get(db.orgId, 'connector_tools', () => Promise.resolve('newer'));
    await db.dataSource.query(
      `INSERT INTO connector_actions (connector_id, position, name, method, path, write) VALUES ($1, 0, 'a', 'GET', '/', false)`,
      [id],
    );
    await until(
      'the action insert to reach the cache',
      async () => (await cache.get(db.orgId, 'connector_tools', () => Promise.resolve('newest'))) === 'newest',
    );
  });

  it('an update that leaves the row as it was (sign-in provisioning upserts the org) drops nothing', async () => {
    const heard: string[] = [];
    cache.follow((orgId) => heard.push(orgId));
    await cache.get(db.orgId, 'org', readOnly);
    const loads = cache.loads;
    // What ProvisioningService runs on every sign-in cache miss.
    await db.dataSource.query(
      `INSERT INTO orgs (external_id, name) SELECT external_id, name FROM orgs WHERE id = $1
       ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id`,
      [db.orgId],
    );
    // A real change elsewhere, committed after it: once its notice is heard, an earlier one would have been too.
    const [other] = await db.dataSource.query(`INSERT INTO orgs (external_id, name) VALUES ($1, $1) RETURNING id`, [
      `other-${Date.now()}`,
    ]);
    await until('the other org insert to be announced', () => Promise.resolve(heard.includes(other.id)));
    expect(heard).not.toContain(db.orgId);
    await cache.get(db.orgId, 'org', readOnly);
    expect(cache.loads).toBe(loads);
  });

  it('a load that was under way when a change was announced is not kept', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.get(db.orgId, 'agent:x', async () => {
      await gate;
      return 'stale';
    });
    cache.invalidate(db.orgId);
    release();
    expect(await slow).toBe('stale'); // its caller asked before the change
    expect(await cache.get(db.orgId, 'agent:x', () => Promise.resolve('fresh'))).toBe('fresh');
  });

  it('caches nothing while it cannot hear about changes', async () => {
    await cache.onModuleDestroy();
    const loads = cache.loads;
    await cache.get(db.orgId, 'org', readOnly);
    await cache.get(db.orgId, 'org', readOnly);
    expect(cache.loads).toBe(loads + 2);
    await cache.onModuleInit();
  });
});
