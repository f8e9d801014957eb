import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Channels1764460802000 implements MigrationInterface {
  name = 'Channels1764460802000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE channels (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('feishu', 'slack', 'wecom', 'inbox')),
      name text NOT NULL,
      config jsonb NOT NULL DEFAULT '{}',
      secrets_enc text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX channels_org_idx ON channels (org_id)`);
    // Platforms retry deliveries; a row per seen event id makes the second delivery a no-op.
    await q.query(`CREATE TABLE channel_events (
      channel_id uuid NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      event_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (channel_id, event_id)
    )`);
    await q.query(`CREATE TABLE notifications (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      channel_id uuid NULL REFERENCES channels(id) ON DELETE SET NULL,
      agent_id uuid NULL,
      run_id uuid NULL,
      user_id uuid NULL,
      text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX notifications_org_created_idx ON notifications (org_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE notifications`);
    await q.query(`DROP TABLE channel_events`);
    await q.query(`DROP TABLE channels`);
  }
}
