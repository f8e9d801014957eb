import { validateEnvironment } from './environment.js';

describe('validateEnvironment', () => {
  it('accepts an empty environment (embedded defaults)', () => {
    expect(() => validateEnvironment({})).not.toThrow();
  });

  it('names PORT when it is not a number', () => {
    expect(() => validateEnvironment({ PORT: 'abc' })).toThrow(/PORT="abc".*integer/);
  });

  it('names OIDC_ISSUER when AUTH_MODE=oidc has no issuer', () => {
    expect(() => validateEnvironment({ AUTH_MODE: 'oidc' })).toThrow(/OIDC_ISSUER.*AUTH_MODE=oidc/);
  });

  it('accepts oidc with a JWKS URL instead of an issuer', () => {
    expect(() => validateEnvironment({ AUTH_MODE: 'oidc', OIDC_JWKS_URL: 'http://127.0.0.1:1/jwks' })).not.toThrow();
  });

  it('rejects an unknown AUTH_MODE and a short dev secret', () => {
    expect(() => validateEnvironment({ AUTH_MODE: 'none' })).toThrow(/AUTH_MODE/);
    expect(() => validateEnvironment({ AUTH_DEV_SECRET: 'short' })).toThrow(/AUTH_DEV_SECRET/);
  });
});
