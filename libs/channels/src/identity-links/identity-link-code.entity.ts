import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The schema of `identity_link_codes` (a one-time code, stored hashed, sent to a chat identity to prove it), so the
 * entities describe every table. Rows are read and written with SQL by IdentityLinksService.
 */
@Entity('identity_link_codes')
@Index('identity_link_codes_user_idx', ['orgId', 'userId'])
@Check('identity_link_codes_platform_check', "platform IN ('feishu', 'slack', 'wecom')")
export class IdentityLinkCode {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'identity_link_codes_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @ForeignKey('users', { name: 'identity_link_codes_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;
  @Column('text') platform: string;
  @Column('text') externalId: string;
  @Column('uuid') channelId: string;
  @Column('text') codeHash: string;
  @Column('integer', { default: 0 }) attempts: number;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz', { nullable: true }) consumedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
