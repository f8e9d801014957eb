import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A message an agent sent to the built-in inbox (the `channel_notify` tool on an inbox channel). */
@Entity('notifications')
@Index('notifications_org_created_idx', ['orgId', 'createdAt'])
export class NotificationEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'notifications_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @ForeignKey('channels', { name: 'notifications_channel_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  channelId: string | null;
  @Column('uuid', { nullable: true }) agentId: string | null;
  @Column('uuid', { nullable: true }) runId: string | null;
  @Column('uuid', { nullable: true }) userId: string | null;
  @Column('text') text: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
