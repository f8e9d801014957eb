import { DEV_AUTH_SECRET_DEFAULT, validateEnvironment } from './environment.js';

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

  it('oidc pins issuer and audience: a JWKS URL alone, or an issuer without audience, is refused', () => {
    expect(() => validateEnvironment({ OIDC_JWKS_URL: 'http://127.0.0.1:1/jwks' })).toThrow(
      /OIDC_ISSUER[\s\S]*OIDC_AUDIENCE/,
    );
    expect(() => validateEnvironment({ OIDC_ISSUER: 'http://127.0.0.1:1' })).toThrow(/OIDC_AUDIENCE must be set/);
    expect(() => validateEnvironment({ OIDC_ISSUER: 'http://127.0.0.1:1', OIDC_AUDIENCE: 'warden' })).not.toThrow();
  });

  it('production refuses the dev default secret and the demo seed', () => {
    expect(() => validateEnvironment({ NODE_ENV: 'production' })).toThrow(
      /AUTH_MODE=oidc with OIDC_ISSUER and OIDC_AUDIENCE.*AUTH_ALLOW_DEV_IN_PRODUCTION=1/,
    );
    const secret = 'x'.repeat(32);
    expect(() => validateEnvironment({ NODE_ENV: 'production', AUTH_DEV_SECRET: secret })).toThrow(
      /AUTH_ALLOW_DEV_IN_PRODUCTION/,
    );
    expect(() =>
      validateEnvironment({
        NODE_ENV: 'production',
        AUTH_DEV_SECRET: 'x'.repeat(20),
        AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
      }),
    ).toThrow(/32 characters/);
    expect(() =>
      validateEnvironment({ NODE_ENV: 'production', AUTH_DEV_SECRET: secret, AUTH_ALLOW_DEV_IN_PRODUCTION: '1' }),
    ).not.toThrow();
    expect(() =>
      validateEnvironment({
        NODE_ENV: 'production',
        AUTH_DEV_SECRET: secret,
        AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
        SEED_DEMO: '1',
      }),
    ).toThrow(/SEED_DEMO/);
    expect(() =>
      validateEnvironment({
        NODE_ENV: 'production',
        AUTH_DEV_SECRET: DEV_AUTH_SECRET_DEFAULT,
        AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
      }),
    ).toThrow(/published default/);
  });

  it('names HOOK_TIMING unless it is sampled or every', () => {
    expect(() => validateEnvironment({ HOOK_TIMING: 'every' })).not.toThrow();
    expect(() => validateEnvironment({ HOOK_TIMING: 'always' })).toThrow(/HOOK_TIMING/);
  });

  it('names DB_NAMED_STATEMENTS unless it is a yes or a no (a typo must not switch prepared statements off)', () => {
    expect(() => validateEnvironment({ DB_NAMED_STATEMENTS: 'off' })).not.toThrow();
    expect(() => validateEnvironment({ DB_NAMED_STATEMENTS: 'nope' })).toThrow(/DB_NAMED_STATEMENTS/);
  });

  it('rejects an unknown AUTH_MODE and a short dev secret', () => {
    expect(() => validateEnvironment({ AUTH_MODE: 'none' })).toThrow(/AUTH_MODE/);
    expect(() => validateEnvironment({ AUTH_DEV_SECRET: 'short' })).toThrow(/AUTH_DEV_SECRET/);
  });

  it('names LLM_KEY_ORIGINS unless it lists NAME=http(s) origin pairs, each name once', () => {
    for (const bad of [
      'LLM_API_KEY',
      'LLM_API_KEY=',
      'LLM_API_KEY=ftp://x',
      '1KEY=https://a.example',
      'A=https://a.example,A=https://b.example',
    ]) {
      expect(() => validateEnvironment({ LLM_KEY_ORIGINS: bad })).toThrow(
        /LLM_KEY_ORIGINS=.*NAME=https:\/\/origin pairs/,
      );
    }
    expect(() =>
      validateEnvironment({ LLM_KEY_ORIGINS: 'LLM_API_KEY=https://api.openai.com, OTHER=http://llm.corp:8080/v1' }),
    ).not.toThrow();
  });
});
