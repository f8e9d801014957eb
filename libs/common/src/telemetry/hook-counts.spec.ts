import { Metrics } from './metrics.js';

describe('hook metrics: plain counts, read at scrape time', () => {
  it('exposes each hook outcome count and its duration histogram as prom-client did', async () => {
    const metrics = new Metrics();
    const audit = metrics.statsFor('audit_log', 'PostToolUse');
    expect(metrics.statsFor('audit_log', 'PostToolUse')).toBe(audit);
    audit.record('allow', 0);
    audit.record('allow', 0.0003);
    audit.record('error', 2);
    metrics.statsFor('confirmation_gate', 'PreToolUse').record('block', 0.02);
    const text = await metrics.registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('warden_hook_'));
    expect(lines).toEqual(
      expect.arrayContaining([
        'warden_hook_outcomes_total{hook="audit_log",point="PostToolUse",outcome="allow"} 2',
        'warden_hook_outcomes_total{hook="audit_log",point="PostToolUse",outcome="error"} 1',
        'warden_hook_outcomes_total{hook="confirmation_gate",point="PreToolUse",outcome="block"} 1',
        'warden_hook_duration_seconds_bucket{hook="audit_log",point="PostToolUse",le="0.0001"} 1',
        'warden_hook_duration_seconds_bucket{hook="audit_log",point="PostToolUse",le="0.0005"} 2',
        'warden_hook_duration_seconds_bucket{hook="audit_log",point="PostToolUse",le="1"} 2',
        'warden_hook_duration_seconds_bucket{hook="audit_log",point="PostToolUse",le="5"} 3',
        'warden_hook_duration_seconds_bucket{hook="audit_log",point="PostToolUse",le="+Inf"} 3',
        'warden_hook_duration_seconds_sum{hook="audit_log",point="PostToolUse"} 2.0003',
        'warden_hook_duration_seconds_count{hook="audit_log",point="PostToolUse"} 3',
        'warden_hook_duration_seconds_count{hook="confirmation_gate",point="PreToolUse"} 1',
      ]),
    );
    expect(text).toContain('# TYPE warden_hook_duration_seconds histogram');
    expect(text).toContain('# TYPE warden_hook_outcomes_total counter');
    // A second scrape reads the same totals (nothing summed twice).
    expect(await metrics.registry.metrics()).toContain(
      'warden_hook_outcomes_total{hook="audit_log",point="PostToolUse",outcome="allow"} 2',
    );
  });

  it('an untimed outcome (sampled hook timing) is counted, and observes no duration', async () => {
    const metrics = new Metrics();
    const guard = metrics.statsFor('read_only_guard', 'PreToolUse');
    guard.record('allow', undefined);
    guard.record('allow', 0.0002);
    const lines = (await metrics.registry.metrics()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'warden_hook_outcomes_total{hook="read_only_guard",point="PreToolUse",outcome="allow"} 2',
        'warden_hook_duration_seconds_count{hook="read_only_guard",point="PreToolUse"} 1',
        'warden_hook_duration_seconds_sum{hook="read_only_guard",point="PreToolUse"} 0.0002',
      ]),
    );
  });
});
