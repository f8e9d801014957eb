import { confirmationNotice } from './confirmation.types.js';

describe('confirmationNotice (the payloads of the confirmations NOTIFY channel)', () => {
  const id = '0b6f3c1e-7d2a-4c55-9a61-2f0e8d7c9b10';

  it('a bare id is a decision; prefixed ids are a request, a vote or a step', () => {
    expect(confirmationNotice(id)).toEqual({ kind: 'decided', id });
    expect(confirmationNotice(`requested:${id}`)).toEqual({ kind: 'requested', id });
    expect(confirmationNotice(`voted:${id}`)).toEqual({ kind: 'voted', id });
    expect(confirmationNotice(`stepped:${id}`)).toEqual({ kind: 'stepped', id });
  });

  it("a request's first reminder or escalation time rides on its notice (what another instance arms for)", () => {
    expect(confirmationNotice(`requested:${id}:1796306400123`)).toEqual({
      kind: 'requested',
      id,
      firstStepAt: 1796306400123,
    });
  });
});
