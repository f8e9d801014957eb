import { createHash } from 'node:crypto';
import { canonicalEvent, chainHash, GENESIS_HASH } from './audit-event.js';
import { canonicalJson } from './canonical-json.js';
import { configDiff } from './config-diff.js';

describe('audit event hashing', () => {
  const event = {
    org_id: '6f1c1f0e-51c4-4bb8-9b43-1f1c2f0f9a11',
    seq: 42,
    kind: 'config',
    action: 'agent.updated',
    entity_type: 'agent',
    entity_id: 'a1',
    actor: null,
    occurred_at: '2026-12-01T08:00:00.000Z',
    payload: { z: 1, a: { y: [3, { c: 1, b: 2 }], x: 'é"\n' } },
  };

  it('the canonical text is canonicalJson of the whole event (keys sorted at every level)', () => {
    expect(canonicalEvent(event, canonicalJson(event.payload))).toBe(canonicalJson(event));
  });

  it('hash = sha256(prev_hash || canonical(event)), and any field change changes it', () => {
    const expected = createHash('sha256')
      .update(GENESIS_HASH + canonicalJson(event))
      .digest('hex');
    expect(chainHash(GENESIS_HASH, event)).toBe(expected);
    expect(chainHash(GENESIS_HASH, { ...event, actor: 'mallory' })).not.toBe(expected);
    expect(chainHash(GENESIS_HASH, { ...event, seq: 43 })).not.toBe(expected);
    expect(chainHash('f'.repeat(64), event)).not.toBe(expected);
  });
});

describe('configDiff', () => {
  it('walks objects key by key and compares arrays whole', () => {
    const before = { name: 'payer', model_config_json: { hooks: { class_hooks: ['audit_log'] }, max_iterations: 10 } };
    const after = {
      name: 'payer',
      model_config_json: {
        hooks: { class_hooks: ['audit_log', 'result_truncate'] },
        tools: ['oa__*'],
        max_iterations: 10,
      },
    };
    expect(configDiff(before, after)).toEqual([
      { path: 'model_config_json.hooks.class_hooks', before: ['audit_log'], after: ['audit_log', 'result_truncate'] },
      { path: 'model_config_json.tools', before: null, after: ['oa__*'] },
    ]);
    expect(configDiff(before, before)).toEqual([]);
    // jsonb gives keys back in its own order: that is not a change.
    expect(configDiff({ edges: [{ from: 'a', to: 'b' }] }, { edges: [{ to: 'b', from: 'a' }] })).toEqual([]);
  });
});
