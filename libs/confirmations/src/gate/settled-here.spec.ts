import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';
import { SettledHere } from './settled-here.js';

const row = (callId: string, status: ConfirmationStatus): ConfirmationRequest =>
  ({ id: `c-${callId}`, runId: 'run-1', callId, status }) as Partial<ConfirmationRequest> as ConfirmationRequest;

describe('SettledHere', () => {
  it('hands a settled row to the call that comes back for it, once; a pending row is never kept', () => {
    const here = new SettledHere();
    here.onSettled(row('a', ConfirmationStatus.Approved));
    here.onSettled(row('b', ConfirmationStatus.Pending));
    expect(here.take('run-1', 'a')).toMatchObject({ id: 'c-a', status: 'approved' });
    expect(here.take('run-1', 'a')).toBeUndefined();
    expect(here.take('run-1', 'b')).toBeUndefined();
    expect(here.take('run-2', 'a')).toBeUndefined();
  });

  it('keeps at most 500 rows, forgetting the oldest first', () => {
    const here = new SettledHere();
    for (let i = 0; i <= 500; i++) here.onSettled(row(`call-${i}`, ConfirmationStatus.Rejected));
    expect(here.take('run-1', 'call-0')).toBeUndefined();
    expect(here.take('run-1', 'call-1')).toMatchObject({ status: 'rejected' });
    expect(here.take('run-1', 'call-500')).toMatchObject({ status: 'rejected' });
  });
});
