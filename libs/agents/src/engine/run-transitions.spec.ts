import { FINAL_FROM, RUN_TRANSITIONS, statusesLeadingTo } from './run-transitions.js';

describe('run status transitions', () => {
  it('no final status leads anywhere, and every final status is reached only from an active one', () => {
    for (const s of ['completed', 'failed', 'refused', 'cancelled'] as const) {
      expect(RUN_TRANSITIONS[s]).toEqual([]);
      expect(FINAL_FROM[s].every((from) => from === 'running' || from === 'waiting')).toBe(true);
    }
  });
  it('a run is refused only before it ever ran a step, and waits only while running', () => {
    expect(statusesLeadingTo('refused')).toEqual(['running']);
    expect(statusesLeadingTo('waiting')).toEqual(['running']);
    expect(statusesLeadingTo('running')).toEqual(['waiting']);
  });
});
