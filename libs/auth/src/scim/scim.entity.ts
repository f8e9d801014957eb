import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/** A SCIM bearer token of one org: only its SHA-256 is kept (the secret is shown once, at creation). */
@Entity('scim_tokens')
@Unique('scim_tokens_token_hash_key', ['tokenHash'])
@Index('scim_tokens_org_idx', ['orgId'])
export class ScimToken {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'scim_tokens_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') tokenHash: string;
  @Column('text', { nullable: true }) label: string | null;
  @ForeignKey('users', { name: 'scim_tokens_created_by_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  createdBy: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
}

/** A directory group; its display name is the role its members hold in Warden. */
@Entity('scim_groups')
@Unique('scim_groups_org_name_key', ['orgId', 'displayName'])
export class ScimGroup {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'scim_groups_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') displayName: string;
  @Column('text', { nullable: true }) externalId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('scim_group_members')
@Index('scim_group_members_user_idx', ['userId'])
export class ScimGroupMember {
  @ForeignKey('scim_groups', { name: 'scim_group_members_group_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  groupId: string;
  @ForeignKey('users', { name: 'scim_group_members_user_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  userId: string;
}
