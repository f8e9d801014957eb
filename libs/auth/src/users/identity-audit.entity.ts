import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The schema of `identity_audit` (one link, relink or unlink of a chat identity), so the entities describe every
 * table. Rows are written with SQL by UsersService and ProvisioningService.
 */
@Entity('identity_audit')
@Index('identity_audit_org_created_idx', ['orgId', 'createdAt'])
@Check('identity_audit_action_check', "action IN ('link', 'unlink', 'relink')")
@Check('identity_audit_method_check', "method IN ('admin', 'proof', 'self', 'sso')")
export class IdentityAuditEntry {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'identity_audit_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @ForeignKey('users', { name: 'identity_audit_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;
  @Column('text') platform: string;
  @Column('text', { nullable: true }) externalId: string | null;
  @Column('text', { nullable: true }) previousExternalId: string | null;
  @Column('text') action: 'link' | 'unlink' | 'relink';
  @Column('text') method: 'admin' | 'proof' | 'self' | 'sso';
  @ForeignKey('users', { name: 'identity_audit_by_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  byUserId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
