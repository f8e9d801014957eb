import { HookPoint } from '../hook.types.js';
import { protocolResult } from './hook-protocol.js';

describe("hook protocol: the original system's result fields", () => {
  it('allow: false with error blocks, like decision "block" with reason', () => {
    expect(protocolResult(HookPoint.PreToolUse, { allow: false, error: 'no deletes in prod' }, 'h')).toEqual({
      allow: false,
      error: 'no deletes in prod',
    });
    expect(protocolResult(HookPoint.PreToolUse, { allow: false }, 'h')).toEqual({
      allow: false,
      error: "Blocked by hook 'h'",
    });
  });

  it('modified_args rewrites PreToolUse args and modified_result rewrites PostToolUse results', () => {
    expect(protocolResult(HookPoint.PreToolUse, { allow: true, modified_args: { amount: 1 } }, 'h')).toEqual({
      modifiedArgs: { amount: 1 },
    });
    expect(protocolResult(HookPoint.PostToolUse, { modified_result: { masked: true } }, 'h')).toEqual({
      modifiedResult: '{"masked":true}',
    });
  });

  it('refuses a non-boolean allow and modified_args after the tool ran', () => {
    expect(() => protocolResult(HookPoint.PreToolUse, { allow: 'no' }, 'h')).toThrow('allow must be true or false');
    expect(() => protocolResult(HookPoint.PostToolUse, { modified_args: {} }, 'h')).toThrow(
      'updated_input is only valid for PreToolUse',
    );
  });

  it('ask (Claude Code permissionDecision "ask", or decision "ask") asks a human with the reason; not after the tool ran', () => {
    expect(
      protocolResult(
        HookPoint.PreToolUse,
        { hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'new vendor' } },
        'h',
      ),
    ).toEqual({ ask: 'new vendor' });
    expect(protocolResult(HookPoint.PreToolUse, { decision: 'ask' }, 'h')).toEqual({
      ask: "hook 'h' asks for a human approval",
    });
    expect(
      protocolResult(HookPoint.PreToolUse, { decision: 'ask', reason: 'check', updated_input: { a: 1 } }, 'h'),
    ).toEqual({
      ask: 'check',
      modifiedArgs: { a: 1 },
    });
    expect(() => protocolResult(HookPoint.PostToolUse, { decision: 'ask' }, 'h')).toThrow(
      'a PostToolUse hook cannot ask for approval',
    );
    expect(() =>
      protocolResult(HookPoint.PreToolUse, { hookSpecificOutput: { permissionDecision: 'maybe' } }, 'h'),
    ).toThrow('permissionDecision must be "allow", "deny" or "ask"');
  });
});
