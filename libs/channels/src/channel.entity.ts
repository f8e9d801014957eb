import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ChannelType } from './channel.js';

@Entity('channels')
export class ChannelEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('text') type: ChannelType;
  @Column('text') name: string;
  /** Non-secret keys only; secrets live encrypted in `secretsEnc`. */
  @Column('jsonb') config: Record<string, unknown>;
  @Column('text', { nullable: true }) secretsEnc: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** A platform event already handled (platforms retry deliveries; a replayed click must not count twice). */
@Entity('channel_events')
export class ChannelEventEntity {
  @PrimaryColumn('uuid') channelId: string;
  @PrimaryColumn('text') eventId: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
