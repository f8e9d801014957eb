import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';

/**
 * The schema of `org_hooks` (an org's `model_config_json.hooks`-shaped config, added to every run of the org), so the
 * entities describe every table. Rows are read and written with SQL by OrgHooksStore.
 */
@Entity('org_hooks')
export class OrgHooksRow {
  @ForeignKey('orgs', { name: 'org_hooks_org_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  orgId: string;
  @Column('jsonb') hooks: unknown;
  @Column('uuid', { nullable: true }) updatedBy: string | null;
  @Column('timestamptz', { default: () => 'now()' }) updatedAt: Date;
}
