import type { ScriptTurn } from '../agents/agent-config.js';
import { LlmError, LlmProvider, type LlmRequest, type LlmTurn } from './llm-provider.js';

/** A deterministic model that plays the agent's `script` turns in order (demo and tests). */
export class ScriptedProvider extends LlmProvider {
  constructor(private readonly script: ScriptTurn[]) {
    super();
  }

  complete(request: LlmRequest): Promise<LlmTurn> {
    const turn = this.script.at(request.turn);
    if (request.turn < 0 || !turn) {
      return Promise.reject(
        new LlmError(`the scripted model has no turn ${request.turn + 1} (its script has ${this.script.length})`),
      );
    }
    // Ids derive from the run and turn, so a resumed run replays the same ids (and Idempotency-Keys).
    const prefix = `call_${request.runId.replace(/-/g, '').slice(0, 12)}_${request.turn}`;
    const toolCalls = (turn.tool_calls ?? []).map((c, i) => ({
      id: `${prefix}_${i}`,
      name: c.name,
      args: c.args,
      rawArguments: JSON.stringify(c.args),
    }));
    return Promise.resolve({ content: turn.content ?? '', toolCalls });
  }
}
