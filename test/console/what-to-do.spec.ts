import { whatToDo } from '../../apps/console/src/ui/what-to-do.js';

describe('what an error toast tells a person to do', () => {
  it.each([
    [400, /Correct what the message names/],
    [401, /sign in again/],
    [403, /Ask an admin of your organisation/],
    [404, /reload the list/],
    [409, /Reload to see its current state/],
    [422, /fix the agent's configuration/],
    [429, /Wait a moment/],
    [500, /tell an admin the time/],
    [503, /tell an admin the time/],
  ])('HTTP %i', (status, hint) => {
    expect(whatToDo(status, new Error('x'))).toMatch(hint);
  });

  it('a server that cannot be reached (fetch rejects with a TypeError) says to check the connection', () => {
    expect(whatToDo(undefined, new TypeError('Failed to fetch'))).toMatch(/cannot be reached: check your connection/);
    expect(whatToDo(undefined, new Error('boom'))).toMatch(/Try again/);
  });
});
