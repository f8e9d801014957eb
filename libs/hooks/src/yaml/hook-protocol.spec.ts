import { HookPoint } from '../hook.types.js';
import { protocolResult } from './hook-protocol.js';

describe('hook protocol: the original system\'s result fields', () => {
  it('allow: false with error blocks, like decision "block" with reason', () => {
    expect(protocolResult(HookPoint.PreToolUse, { allow: false, error: 'no deletes in prod' }, 'h')).toEqual({ allow: false, error: 'no deletes in prod' });
    expect(protocolResult(HookPoint.PreToolUse, { allow: false }, 'h')).toEqual({ allow: false, error: "Blocked by hook 'h'" });
  });

  it('modified_args rewrites PreToolUse args and modified_result rewrites PostToolUse results', () => {
    expect(protocolResult(HookPoint.PreToolUse, { allow: true, modified_args: { amount: 1 } }, 'h')).toEqual({ modifiedArgs: { amount: 1 } });
    expect(protocolResult(HookPoint.PostToolUse, { modified_result: { masked: true } }, 'h')).toEqual({ modifiedResult: '{"masked":true}' });
  });

  it('refuses a non-boolean allow and modified_args after the tool ran', () => {
    expect(() => protocolResult(HookPoint.PreToolUse, { allow: 'no' }, 'h')).toThrow('allow must be true or false');
    expect(() => protocolResult(HookPoint.PostToolUse, { modified_args: {} }, 'h')).toThrow('updated_input is only valid for PreToolUse');
  });
});
