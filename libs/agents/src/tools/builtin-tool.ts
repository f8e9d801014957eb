import type { RunEventEmitter, Surface } from '@warden/hooks';
import type { EvalRunOptions } from '../runs/run.entity.js';

/** What a built-in tool knows about the call it serves. */
export interface ToolRunContext {
  orgId: string;
  userId: string;
  agentId: string;
  runId: string;
  callId: string;
  surface: Surface;
  /** Emits run events (persisted first, then streamed). */
  emit: RunEventEmitter;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Set in eval runs: a tool that starts runs must start them as eval runs too (writes simulated). */
  eval?: EvalRunOptions;
}

/**
 * A tool implemented in-process (e.g. `call_agent`, `channel_notify`). Any module adds one by providing a class that
 * extends this; the ToolRegistry discovers them at bootstrap (names must be unique).
 */
export abstract class BuiltinTool {
  abstract readonly name: string;
  abstract readonly description: string;
  /** JSON schema (type object) of the args. */
  abstract readonly parameters: Record<string, unknown>;
  /** The tool changes something (read-only orgs block it). */
  abstract readonly write: boolean;
  /** The call asks a person a question (ask_human): its approval carries the answer. */
  readonly humanTask: boolean = false;
  /** Whether a call needs a human approval (default: no). */
  requiresConfirmation(_args: Record<string, unknown>): boolean {
    return false;
  }
  /** Returns the observation text; a thrown error becomes an error observation. */
  abstract execute(args: Record<string, unknown>, ctx: ToolRunContext): Promise<string>;
}
