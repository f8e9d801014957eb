import { jest } from '@jest/globals';
import { DEV_AUTH_SECRET_DEFAULT } from '@warden/common';
import { spawn } from 'node:child_process';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { bootExpectingFailure, ensureBuilt } from '../support/server-process.js';
import { startTestApp, TEST_DEV_SECRET, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

jest.setTimeout(60_000);

/** Secrets, production boot rules and token rules, each tried as an org admin or an outsider would. */
describe('secrets: api_key_env names an allow-list, not the environment', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'hello' }));
    t = await startTestApp({
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
    });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  const agentBody = (keyEnv: string) => ({
    name: `a-${keyEnv}`,
    model_config_json: { model: { provider: 'openai', base_url: llm.baseUrl, model: 'm', api_key_env: keyEnv } },
  });

  it.each(['AUTH_DEV_SECRET', 'DATABASE_URL', 'APP_ENCRYPTION_KEY', 'PATH'])(
    'an admin cannot name %s as a model key (400 naming it)',
    async (name) => {
      const admin = await t.token('alice', 'acme', ['admin']);
      const res = await t.request('POST', '/api/agents', { token: admin, body: agentBody(name) });
      expect(res.status).toBe(400);
      expect(res.body.problems[0]).toContain(`api_key_env "${name}" is not an allowed key variable`);
      expect(res.body.message).toContain('WARDEN_LLM_KEY_*');
    },
  );

  it('an agent stored before the rule never sends the server secret to the model server', async () => {
    const admin = await t.token('alice', 'acme', ['admin']);
    const created = await t.request('POST', '/api/agents', { token: admin, body: agentBody('WARDEN_LLM_KEY_FAKE') });
    expect(created.status).toBe(201);
    const sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
    await sql.query(
      `UPDATE agents SET model_config_json = jsonb_set(model_config_json, '{model,api_key_env}', '"AUTH_DEV_SECRET"') WHERE id = $1`,
      [created.body.id],
    );
    await sql.end();
    const seenBefore = llm.http.requests.length;
    const res = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(res.text).toMatch(/AUTH_DEV_SECRET is not allowed/);
    expect(llm.http.requests.slice(seenBefore).map((r) => r.headers.authorization)).not.toContain(
      `Bearer ${TEST_DEV_SECRET}`,
    );
  });

  it('an allow-listed key reaches the model server as the bearer token', async () => {
    const admin = await t.token('alice', 'acme', ['admin']);
    const created = await t.request('POST', '/api/agents', {
      token: admin,
      body: { ...agentBody('WARDEN_LLM_KEY_FAKE'), name: 'ok' },
    });
    const res = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(res.events.at(-1)?.event).toBe('done');
    expect(llm.http.requests.at(-1)?.headers.authorization).toBe('Bearer sk-fake');
  });
});

describe('tokens must expire', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_TOKEN_MAX_LIFETIME_S: '3600' });
  });
  afterAll(async () => {
    await t.close();
  });
  const key = new TextEncoder().encode(TEST_DEV_SECRET);

  it('a token without exp is refused', async () => {
    const token = await new SignJWT({ org_id: 'acme', roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .sign(key);
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/no exp claim/);
  });

  it('a token living longer than AUTH_TOKEN_MAX_LIFETIME_S is refused; a shorter one works', async () => {
    const long = await new SignJWT({ org_id: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(key);
    const res = await t.request('GET', '/api/me', { token: long });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/AUTH_TOKEN_MAX_LIFETIME_S/);
    const short = await new SignJWT({ org_id: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('30m')
      .sign(key);
    expect((await t.request('GET', '/api/me', { token: short })).status).toBe(200);
  });
});

describe('OIDC pins issuer and audience', () => {
  let idp: HttpFake;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    idp = await startHttpFake((req) => {
      if (req.path === '/.well-known/openid-configuration') return { issuer: idp.url, jwks_uri: `${idp.url}/jwks` };
      return { keys: [jwk] };
    });
  });
  afterAll(async () => {
    await idp.close();
  });

  it.each([
    ['an issuer without an audience', () => ({ OIDC_ISSUER: idp.url }), /OIDC_AUDIENCE must be set/],
    ['only a JWKS URL (any issuer)', () => ({ OIDC_JWKS_URL: `${idp.url}/jwks` }), /OIDC_ISSUER must be set/],
  ])('the server refuses to start with %s', async (_, env, message) => {
    await expect(startTestApp({ AUTH_MODE: 'oidc', ...env() })).rejects.toThrow(message);
  });

  it('a token of another client of the same identity provider is refused', async () => {
    const t = await startTestApp({ AUTH_MODE: 'oidc', OIDC_ISSUER: idp.url, OIDC_AUDIENCE: 'warden' });
    try {
      const other = await new SignJWT({ org_id: 'acme', roles: ['admin'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject('alice')
        .setIssuer(idp.url)
        .setAudience('other-client')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      expect((await t.request('GET', '/api/me', { token: other })).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});

describe('OIDC with a JWKS URL still pins the issuer', () => {
  let idp: HttpFake;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let t: TestApp;
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    idp = await startHttpFake(() => ({ keys: [jwk] }));
    t = await startTestApp({
      AUTH_MODE: 'oidc',
      OIDC_JWKS_URL: `${idp.url}/jwks`,
      OIDC_ISSUER: 'https://idp.example',
      OIDC_AUDIENCE: 'warden',
    });
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const signed = (issuer: string) =>
    new SignJWT({ org_id: 'acme', roles: ['admin'] })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('alice')
      .setIssuer(issuer)
      .setAudience('warden')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  it('a token of the same keys but another issuer is refused; the pinned issuer is accepted', async () => {
    expect((await t.request('GET', '/api/me', { token: await signed('https://other-issuer.example') })).status).toBe(
      401,
    );
    expect((await t.request('GET', '/api/me', { token: await signed('https://idp.example') })).status).toBe(200);
  });
});

describe('production defaults', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-prod-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('NODE_ENV=production without auth settings exits naming what to set', async () => {
    const { code, output } = await bootExpectingFailure({ NODE_ENV: 'production', PGLITE_DIR: path.join(dir, 'p1') });
    expect(code).toBe(1);
    expect(output).toMatch(/AUTH_MODE=oidc with OIDC_ISSUER and OIDC_AUDIENCE/);
    expect(output).toMatch(/AUTH_DEV_SECRET of at least 32 characters together with AUTH_ALLOW_DEV_IN_PRODUCTION=1/);
  });

  it('`NODE_ENV=production npm run start:prod` without auth settings exits naming what to set (acceptance 3, the literal command)', async () => {
    ensureBuilt();
    const child = spawn('npm', ['run', 'start:prod'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        NODE_ENV: 'production',
        PGLITE_DIR: path.join(dir, 'p2'),
      },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(output).toMatch(/set AUTH_MODE=oidc with OIDC_ISSUER and OIDC_AUDIENCE/);
    expect(output).not.toMatch(/listening|Nest application successfully started/i);
  });

  it('the published default dev secret is refused in production, even with AUTH_ALLOW_DEV_IN_PRODUCTION=1', async () => {
    await expect(
      startTestApp({
        NODE_ENV: 'production',
        AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
        AUTH_DEV_SECRET: DEV_AUTH_SECRET_DEFAULT,
      }),
    ).rejects.toThrow(/AUTH_DEV_SECRET is the published default secret/);
  });

  it('the demo OA API answers no one in production, and the demo seed is off', async () => {
    const t = await startTestApp({ NODE_ENV: 'production', AUTH_ALLOW_DEV_IN_PRODUCTION: '1' });
    try {
      expect((await t.request('GET', '/demo-oa/purchases')).status).toBe(404);
      expect((await t.request('POST', '/demo-oa/purchases/PO-1/pay', { body: { amount: 1 } })).status).toBe(404);
      await expect(
        startTestApp({ NODE_ENV: 'production', AUTH_ALLOW_DEV_IN_PRODUCTION: '1', SEED_DEMO: 'true' }),
      ).rejects.toThrow(/SEED_DEMO/);
    } finally {
      await t.close();
    }
  });

  it('outside production the demo OA API still answers (npm start demo)', async () => {
    const t = await startTestApp();
    try {
      expect((await t.request('GET', '/demo-oa/purchases')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
