import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A message an agent sent to the built-in inbox (the `channel_notify` tool on an inbox channel). */
@Entity('notifications')
export class NotificationEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('uuid', { nullable: true }) channelId: string | null;
  @Column('uuid', { nullable: true }) agentId: string | null;
  @Column('uuid', { nullable: true }) runId: string | null;
  @Column('uuid', { nullable: true }) userId: string | null;
  @Column('text') text: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
