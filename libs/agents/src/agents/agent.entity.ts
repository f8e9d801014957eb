import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('agents')
@Index('agents_org_idx', ['orgId'])
export class Agent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'agents_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') name: string;
  @Column('text', { default: '' }) instructions: string;
  /** Stored as the admin wrote it (snake_case keys); read through `parseAgentConfig`. */
  @Column('jsonb') modelConfigJson: Record<string, unknown>;
  @ForeignKey('users', { name: 'agents_owner_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  ownerUserId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
