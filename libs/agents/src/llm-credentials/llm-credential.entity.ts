import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * The schema of `llm_credentials` (an org's model API key, encrypted), so the entities describe every table. Rows
 * are read and written with SQL by LlmCredentialsStore.
 */
@Entity('llm_credentials')
@Unique('llm_credentials_org_id_name_key', ['orgId', 'name'])
export class LlmCredential {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'llm_credentials_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') name: string;
  @Column('text') secretEnc: string;
  /** The origin (scheme, host, port) its key may be sent to; null: stored before origins, usable nowhere. */
  @Column('text', { nullable: true }) origin: string | null;
  @ForeignKey('users', { name: 'llm_credentials_created_by_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  createdBy: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
