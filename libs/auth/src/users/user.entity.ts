import {
  Check,
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

@Entity('users')
@Unique('users_sub_key', ['sub'])
export class User {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') sub: string;
  @Column('text', { nullable: true }) email: string | null;
  @Column('text', { nullable: true }) name: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('org_members')
export class OrgMember {
  @ForeignKey('orgs', { name: 'org_members_org_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  orgId: string;
  @ForeignKey('users', { name: 'org_members_user_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  userId: string;
  @Column('text', { array: true, default: () => "'{}'" }) roles: string[];
  /** False once the directory deactivated the member: every token of theirs is refused at once. */
  @Column('boolean', { default: true }) active: boolean;
  /** Provisioned by SCIM: roles and active state come from the directory, never from token claims. */
  @Column('boolean', { default: false }) directoryManaged: boolean;
  @Column('text', { nullable: true }) scimExternalId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

export type ChatPlatform = 'feishu' | 'slack' | 'wecom';

/** Links a user to their account in a chat app, so a click there can be checked against approver scopes. */
@Entity('identities')
@Unique('identities_platform_external_uq', ['orgId', 'platform', 'externalId'])
@Unique('identities_user_platform_uq', ['orgId', 'userId', 'platform'])
@Index('identities_user_idx', ['userId'])
@Check('identities_platform_check', "platform IN ('feishu', 'slack', 'wecom')")
export class Identity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'identities_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @ForeignKey('users', { name: 'identities_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;
  @Column('text') platform: ChatPlatform;
  @Column('text') externalId: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
