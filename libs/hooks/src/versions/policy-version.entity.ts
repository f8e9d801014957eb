import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';

export type PolicySubjectType = 'agent' | 'org_hooks';

/**
 * One immutable version of a policy: an agent's policy fragment of `model_config_json` or an org's hooks. Written
 * with SQL by PolicyVersions, in the transaction of the change it records (migration PolicyVersions1766200009000).
 */
@Entity('policy_versions')
@Check('policy_versions_subject_type_check', "subject_type IN ('agent', 'org_hooks')")
@Check('policy_versions_version_check', 'version > 0')
export class PolicyVersionRow {
  @PrimaryColumn('text') subjectType: PolicySubjectType;
  /** The agent's id, or the org's id for its hooks. */
  @PrimaryColumn('uuid') subjectId: string;
  @PrimaryColumn('integer') version: number;
  @ForeignKey('orgs', { name: 'policy_versions_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('jsonb') config: Record<string, unknown>;
  @Column('uuid', { nullable: true }) createdBy: string | null;
  @Column('text', { nullable: true }) comment: string | null;
  /** Set on a rollback: the version whose config it restored. */
  @Column('integer', { nullable: true }) rolledBackTo: number | null;
  /** Set on a save forced past failing policy tests: the cases that failed. */
  @Column('text', { array: true, nullable: true }) testsForced: string[] | null;
  @Column('timestamptz', { default: () => 'now()' }) createdAt: Date;
}
