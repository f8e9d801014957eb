import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

@Entity('orgs')
@Unique('orgs_external_id_key', ['externalId'])
export class Org {
  @PrimaryGeneratedColumn('uuid') id: string;
  /** The org claim value from the SSO token. */
  @Column('text') externalId: string;
  @Column('text') name: string;
  @Column('boolean', { default: false }) readOnly: boolean;
  @Column('uuid', { nullable: true }) defaultChannelId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
