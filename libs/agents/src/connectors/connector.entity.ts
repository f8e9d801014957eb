import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** An outside HTTP API an agent can call; its header values are secrets (stored, never returned). */
@Entity('connectors')
export class Connector {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('text') name: string;
  @Column('text') baseUrl: string;
  @Column('jsonb') headers: Record<string, string>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** One callable endpoint of a connector; becomes the tool `<connector>__<action>`. */
@Entity('connector_actions')
export class ConnectorAction {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') connectorId: string;
  @Column('int') position: number;
  @Column('text') name: string;
  @Column('text') method: HttpMethod;
  @Column('text') path: string;
  @Column('text') description: string;
  @Column('jsonb') parameters: Record<string, unknown>;
  @Column('boolean') requiresConfirmation: boolean;
  @Column('text', { nullable: true }) requiresConfirmationWhen: string | null;
  @Column('boolean') write: boolean;
}
