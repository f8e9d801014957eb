import { HookPoint, type HookContext } from '../../hook.types.js';
import { ResultTruncateHook, truncateObservation } from './result-truncate.hook.js';

const ctx = (toolResult: string): HookContext => ({
  point: HookPoint.PostToolUse,
  toolName: 'oa__report',
  toolArgs: {},
  toolResult,
  agentId: 'a',
  userId: 'u',
  orgId: 'o',
  runId: 'r',
  surface: 'chat',
  metadata: {},
  emit: () => Promise.resolve(),
  signal: new AbortController().signal,
});

describe('result_truncate', () => {
  const hook = new ResultTruncateHook();

  it('cuts 20,000 chars to 8,000 (the default) and states the original length', () => {
    const text = 'a'.repeat(8000) + 'b'.repeat(12_000);
    expect(hook.shouldTrigger(ctx(text), {})).toBe(true);
    const result = hook.execute(ctx(text), {});
    expect(result.modifiedResult).toBe(`${'a'.repeat(8000)}\n…[truncated: 20000 chars, showing 8000]`);
    expect(result.sideEffects).toEqual(['observation truncated from 20000 to 8000 chars']);
  });

  it('leaves observations up to max_chars alone', () => {
    expect(hook.shouldTrigger(ctx('x'.repeat(8000)), {})).toBe(false);
    expect(hook.shouldTrigger(ctx('x'.repeat(300)), { max_chars: 300 })).toBe(false);
    expect(hook.shouldTrigger(ctx('x'.repeat(301)), { max_chars: 300 })).toBe(true);
    expect(hook.execute(ctx('short'), { max_chars: 300 })).toEqual({});
  });

  it('never splits a surrogate pair (emoji) at the cut', () => {
    const text = 'x'.repeat(99) + '😀'.repeat(10);
    const cut = truncateObservation(text, 100);
    expect(cut.shown).toBe(99);
    expect(cut.text.startsWith('x'.repeat(99) + '\n…[truncated: 119 chars, showing 99]')).toBe(true);
    // No lone high surrogate before the marker.
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut.text)).toBe(false);
  });
});
