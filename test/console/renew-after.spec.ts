import { renewAfterS } from '../../apps/console/src/auth/renew-after.js';

describe('when the console renews its SSO token', () => {
  it('a minute before an hour-long token ends', () => {
    expect(renewAfterS(3600)).toBe(3540);
  });
  it('after three quarters of a short one, and never sooner than a second', () => {
    expect(renewAfterS(8)).toBe(6);
    expect(renewAfterS(120)).toBe(90);
    expect(renewAfterS(1)).toBe(1);
  });
});
