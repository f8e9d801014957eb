import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { ChannelType } from './channel.js';

@Entity('channels')
@Index('channels_org_idx', ['orgId'])
@Check('channels_type_check', "type IN ('feishu', 'slack', 'wecom', 'inbox')")
export class ChannelEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'channels_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') type: ChannelType;
  @Column('text') name: string;
  /** Non-secret keys only; secrets live encrypted in `secretsEnc`. */
  @Column('jsonb', { default: {} }) config: Record<string, unknown>;
  @Column('text', { nullable: true }) secretsEnc: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** A platform event already handled (platforms retry deliveries; a replayed click must not count twice). */
@Entity('channel_events')
export class ChannelEventEntity {
  @ForeignKey('channels', { name: 'channel_events_channel_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  channelId: string;
  @PrimaryColumn('text') eventId: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
