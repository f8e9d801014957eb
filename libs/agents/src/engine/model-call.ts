import { inSpan } from '@warden/common';
import type { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { LlmError, type LlmRequest, type LlmTurn } from '../llm/llm-provider.js';
import { AnswerDeltaStream } from './answer-delta-stream.js';
import { answerStreams, beforeModelCall } from './lifecycle-hooks.js';
import type { LiveRun } from './live-run.js';

// One model call of a run (ReAct turns, a DAG's synthesis): its PreModelCall hooks, its text streamed as it arrives,
// its span, and the retries of a reply cut off before its end.

/** A model reply cut off before its end is asked for again this many times in all, with a growing pause. */
const MODEL_ATTEMPTS = 3;
const MODEL_RETRY_BASE_MS = 250;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * A model call, asked again (with a growing pause, up to MODEL_ATTEMPTS in all) when its reply was cut off before
 * its end: nothing of an unfinished turn is used. Each retry is announced with a `model_retry` event.
 */
export async function completeWithRetry(live: LiveRun, request: LlmRequest, llm: LlmProviderFactory): Promise<LlmTurn> {
  const provider = await beforeModelCall(live, request, llm);
  for (let attempt = 1; ; attempt++) {
    try {
      return await completeStreaming(live, request, provider);
    } catch (err) {
      if (!(err instanceof LlmError) || !err.retryable || live.abort.signal.aborted) throw err;
      if (attempt >= MODEL_ATTEMPTS)
        throw new LlmError(`the model's reply was incomplete ${attempt} times: ${err.message}`);
      const delayMs = MODEL_RETRY_BASE_MS * 2 ** (attempt - 1);
      await live.emit('model_retry', { attempt, message: err.message, retry_in_ms: delayMs });
      await sleep(delayMs);
    }
  }
}

/** A model call whose text reaches the stream as it arrives (`answer_delta` events), all written before it returns. */
async function completeStreaming(live: LiveRun, request: LlmRequest, provider = live.provider): Promise<LlmTurn> {
  const deltas = new AnswerDeltaStream(live.emit, (content) =>
    live.deferred.push({ type: 'answer_delta', data: { content } }),
  );
  try {
    const model = live.config.model as { provider?: string; model?: string };
    const attributes = {
      'warden.run_id': request.runId,
      'warden.model.provider': model.provider ?? '',
      'warden.model': model.model ?? '',
      'warden.turn': request.turn,
    };
    return await inSpan('model call', attributes, () =>
      provider.complete({ ...request, onContent: answerStreams(live) ? deltas.push : undefined }),
    );
  } finally {
    await deltas.close();
  }
}
