import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An eval is driven under a lease like a run (`locked_by`, `lease_until`, `lease_epoch`), so that after a restart or
 * the death of its instance another one continues it; `case_run_id` is the run of the case under way, waited for
 * (not started again) by whoever continues. `interrupted`: continued after its driver stopped, it could not go on.
 */
export class DurableEvals1766200007001 implements MigrationInterface {
  name = 'DurableEvals1766200007001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evals ADD COLUMN locked_by text, ADD COLUMN lease_until timestamptz,
      ADD COLUMN lease_epoch integer NOT NULL DEFAULT 0, ADD COLUMN case_run_id uuid`);
    await q.query(`ALTER TABLE evals DROP CONSTRAINT evals_status_check`);
    await q.query(
      `ALTER TABLE evals ADD CONSTRAINT evals_status_check CHECK (status IN ('running', 'completed', 'failed', 'interrupted'))`,
    );
    await q.query(`CREATE INDEX evals_active_idx ON evals (lease_until) WHERE status = 'running'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX evals_active_idx`);
    await q.query(`UPDATE evals SET status = 'failed' WHERE status = 'interrupted'`);
    await q.query(`ALTER TABLE evals DROP CONSTRAINT evals_status_check`);
    await q.query(
      `ALTER TABLE evals ADD CONSTRAINT evals_status_check CHECK (status IN ('running', 'completed', 'failed'))`,
    );
    await q.query(
      `ALTER TABLE evals DROP COLUMN case_run_id, DROP COLUMN lease_epoch, DROP COLUMN lease_until, DROP COLUMN locked_by`,
    );
  }
}
