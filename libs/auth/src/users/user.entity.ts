import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('users')
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
  @PrimaryColumn('uuid') orgId: string;
  @PrimaryColumn('uuid') userId: string;
  @Column('text', { array: true, default: () => "'{}'" }) roles: string[];
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

export type ChatPlatform = 'feishu' | 'slack' | 'wecom';

/** Links a user to their account in a chat app, so a click there can be checked against approver scopes. */
@Entity('identities')
export class Identity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('uuid') userId: string;
  @Column('text') platform: ChatPlatform;
  @Column('text') externalId: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
