import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('agents')
export class Agent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('text') name: string;
  @Column('text') instructions: string;
  /** Stored as the admin wrote it (snake_case keys); read through `parseAgentConfig`. */
  @Column('jsonb') modelConfigJson: Record<string, unknown>;
  @Column('uuid', { nullable: true }) ownerUserId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
