import { SqlParams } from '@warden/database';
import type { RunStatus } from '../runs/run.entity.js';
import {
  canTransition,
  IllegalRunTransitionError,
  isFinal,
  RUN_TRANSITIONS,
  statusChange,
  statusesLeadingTo,
  transition,
} from './run-transitions.js';

const STATUSES = Object.keys(RUN_TRANSITIONS) as RunStatus[];

describe('run status transitions (the one table)', () => {
  it('every status is in the table, and every target of the table is a status', () => {
    expect(STATUSES.sort()).toEqual(['cancelled', 'completed', 'failed', 'refused', 'running', 'waiting']);
    for (const to of Object.values(RUN_TRANSITIONS).flat()) expect(STATUSES).toContain(to);
  });

  it('no final status leads anywhere, and every final status is reached only from an active one', () => {
    for (const s of ['completed', 'failed', 'refused', 'cancelled'] as const) {
      expect(isFinal(s)).toBe(true);
      expect(RUN_TRANSITIONS[s]).toEqual([]);
      expect(statusesLeadingTo(s).every((from) => from === 'running' || from === 'waiting')).toBe(true);
    }
    expect([isFinal('running'), isFinal('waiting')]).toEqual([false, false]);
  });

  it('a run is refused only before it ever ran a step, and waits only while running', () => {
    expect(statusesLeadingTo('refused')).toEqual(['running']);
    expect(statusesLeadingTo('waiting')).toEqual(['running']);
    expect(statusesLeadingTo('running')).toEqual(['waiting']);
  });

  it('transition() allows exactly the pairs of the table and refuses every other one', () => {
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        if (RUN_TRANSITIONS[from].includes(to)) {
          expect(canTransition(from, to)).toBe(true);
          expect(transition(from, to)).toBe(to);
        } else {
          expect(canTransition(from, to)).toBe(false);
          expect(() => transition(from, to)).toThrow(IllegalRunTransitionError);
        }
      }
    }
    expect(() => transition('completed', 'running')).toThrow('a run cannot go from completed to running');
  });

  it("statusChange() guards the UPDATE with the table's sources of the target status", () => {
    const p = new SqlParams();
    const change = statusChange(p, 'waiting');
    expect(change).toEqual({
      set: `status = CASE WHEN status = ANY($1::text[]) THEN $2::text ELSE status END`,
      guard: `status = ANY($1::text[])`,
    });
    expect(p.values).toEqual([['running'], 'waiting']);
  });
});
