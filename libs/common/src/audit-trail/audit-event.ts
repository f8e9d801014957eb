import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** What an audit event is about. */
export type AuditEventKind = 'connector_call' | 'config' | 'confirmation' | 'identity';

/** One event to append to its org's chain. */
export interface AuditEventInput {
  orgId: string;
  kind: AuditEventKind;
  /** e.g. `connector_call.completed`, `agent.updated`, `confirmation.approved`, `identity.linked`. */
  action: string;
  entityType?: string | null;
  entityId?: string | null;
  /** The user id (or chat identity) who caused it; null for the system. */
  actor?: string | null;
  occurredAt: Date;
  /** JSON values only (AuditTrail.record normalises anything else, e.g. Date objects, before appending). */
  payload: Record<string, unknown>;
}

/** An event as stored: its place in the chain and the hashes that bind it there. */
export interface ChainedAuditEvent {
  org_id: string;
  seq: number;
  kind: string;
  action: string;
  entity_type: string | null;
  entity_id: string | null;
  actor: string | null;
  occurred_at: string;
  payload: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/** The prev_hash of an org's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The exact text an event's hash covers: every stored field but the hashes, as JSON with keys sorted at every level
 * (`canonicalJson` of the whole event). Built from the payload's canonical text, which is also what gets stored: every
 * envelope key sorts before "payload" and "seq" after it, so the result is the same text, computed once.
 */
export function canonicalEvent(
  e: Omit<ChainedAuditEvent, 'prev_hash' | 'hash' | 'payload'>,
  payloadText: string,
): string {
  const head = canonicalJson({
    action: e.action,
    actor: e.actor,
    entity_id: e.entity_id,
    entity_type: e.entity_type,
    kind: e.kind,
    occurred_at: e.occurred_at,
    org_id: e.org_id,
  });
  return `${head.slice(0, -1)},"payload":${payloadText},"seq":${e.seq}}`;
}

/** hash = sha256(prev_hash || canonical(event)), hex. */
export function chainHash(
  prevHash: string,
  e: Omit<ChainedAuditEvent, 'prev_hash' | 'hash'>,
  payloadText = canonicalJson(e.payload),
): string {
  return createHash('sha256').update(prevHash).update(canonicalEvent(e, payloadText)).digest('hex');
}
