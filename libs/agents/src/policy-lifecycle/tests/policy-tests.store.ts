import { Injectable } from '@nestjs/common';
import type { Queryable } from '@warden/common';
import type { PolicySubject } from '@warden/hooks';
import { DataSource } from 'typeorm';
import type { PolicyTestCase } from './policy-test-case.js';

export interface StoredTests {
  cases: PolicyTestCase[];
  updated_by: string | null;
  updated_at: Date | null;
}

/** The `policy_tests` table: one row of test cases per subject (an agent's policy, an org's hooks). */
@Injectable()
export class PolicyTestsStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(s: PolicySubject, tx: Queryable = this.dataSource): Promise<StoredTests> {
    const [row] = await tx.query<[{ cases: PolicyTestCase[]; updated_by: string | null; updated_at: Date }?]>(
      `SELECT cases, updated_by, updated_at FROM policy_tests
        WHERE org_id = $1 AND subject_type = $2 AND subject_id = $3`,
      [s.orgId, s.type, s.id],
    );
    return row ?? { cases: [], updated_by: null, updated_at: null };
  }

  async replace(s: PolicySubject, cases: PolicyTestCase[], by: string, tx: Queryable): Promise<StoredTests> {
    const [row] = await tx.query<[{ cases: PolicyTestCase[]; updated_by: string | null; updated_at: Date }]>(
      `INSERT INTO policy_tests (subject_type, subject_id, org_id, cases, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (subject_type, subject_id)
       DO UPDATE SET cases = EXCLUDED.cases, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING cases, updated_by, updated_at`,
      [s.type, s.id, s.orgId, JSON.stringify(cases), by],
    );
    return row;
  }
}
