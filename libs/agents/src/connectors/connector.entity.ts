import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** An outside HTTP API an agent can call; its header values are secrets (stored, never returned). */
@Entity('connectors')
@Unique('connectors_org_name_uq', ['orgId', 'name'])
export class Connector {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'connectors_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') name: string;
  @Column('text') baseUrl: string;
  @Column('jsonb', { default: {} }) headers: Record<string, string>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** One callable endpoint of a connector; becomes the tool `<connector>__<action>`. */
@Entity('connector_actions')
@Unique('connector_actions_name_uq', ['connectorId', 'name'])
export class ConnectorAction {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('connectors', { name: 'connector_actions_connector_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  connectorId: string;
  @Column('int') position: number;
  @Column('text') name: string;
  @Column('text') method: HttpMethod;
  @Column('text') path: string;
  @Column('text', { default: '' }) description: string;
  @Column('jsonb', { default: { type: 'object', properties: {} } }) parameters: Record<string, unknown>;
  @Column('boolean', { default: false }) requiresConfirmation: boolean;
  @Column('text', { nullable: true }) requiresConfirmationWhen: string | null;
  @Column('boolean') write: boolean;
}
