import type { Bus } from '@warden/common';
import { RUN_FINISHED, RUN_PARKED } from './live-run.js';

/**
 * Bus events are typed (#30): `npm run typecheck` compiles this spec, so each `@ts-expect-error` below fails the
 * build the day the compiler stops refusing that line. At run time it only shows the bus passes payloads through.
 */
describe('the in-process bus is typed like run events', () => {
  it('an emit carries its event’s declared payload; a wrong payload or an undeclared name does not compile', () => {
    const sent: Array<[string, unknown]> = [];
    const bus: Bus = { emit: (name, payload) => sent.push([name, payload]) > 0 };
    bus.emit(RUN_FINISHED, { runId: 'r1', orgId: 'o1', status: 'completed' });
    bus.emit(RUN_PARKED, { runId: 'r1', approvals: [{ confirmationId: 'c1' }] });
    // @ts-expect-error a run.finished without its org is refused
    bus.emit(RUN_FINISHED, { runId: 'r1', status: 'completed' });
    // @ts-expect-error an event nobody declared is refused
    bus.emit('run.finishd', { runId: 'r1' });
    expect(sent.map(([name]) => name)).toEqual(['run.finished', 'run.parked', 'run.finished', 'run.finishd']);
  });
});
