import type { Connector, ConnectorAction, HttpMethod } from './connector.entity.js';
import { toolNameOf } from './tool-name.js';

/** A connector as the API shows it. */
export interface ConnectorView {
  id: string;
  name: string;
  base_url: string;
  /** Header values are secrets: only their names are shown. */
  header_keys: string[];
  tools: string[];
  actions: Array<{
    name: string;
    tool: string;
    method: HttpMethod;
    path: string;
    description: string;
    parameters: Record<string, unknown>;
    requires_confirmation: boolean;
    requires_confirmation_when: string | null;
    write: boolean;
  }>;
  created_at: Date;
  updated_at: Date;
}

export function connectorView(c: Connector, actions: ConnectorAction[]): ConnectorView {
  return {
    id: c.id,
    name: c.name,
    base_url: c.baseUrl,
    header_keys: Object.keys(c.headers),
    tools: actions.map((a) => toolNameOf(c.name, a.name)),
    actions: actions.map((a) => ({
      name: a.name,
      tool: toolNameOf(c.name, a.name),
      method: a.method,
      path: a.path,
      description: a.description,
      parameters: a.parameters,
      requires_confirmation: a.requiresConfirmation,
      requires_confirmation_when: a.requiresConfirmationWhen,
      write: a.write,
    })),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** A connector as its configuration audit records it: no header values, no timestamps. */
export function auditedConnector({ created_at: _c, updated_at: _u, ...v }: ConnectorView): Record<string, unknown> {
  return v;
}
