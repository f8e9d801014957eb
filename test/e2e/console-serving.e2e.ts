import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The console is part of the server: its files at `/`, index.html for client-side routes, `/api` untouched. The dev
 * sign-in route exists only with dev auth outside production; elsewhere it answers like a route that does not exist.
 */
const consoleDir = mkdtempSync(path.join(tmpdir(), 'warden-console-'));
writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>Warden console</title>');
mkdirSync(path.join(consoleDir, 'assets'));
writeFileSync(path.join(consoleDir, 'assets', 'app-1234.js'), 'console.log("hi")');
// As scripts/build.js leaves them: precompressed copies beside the asset.
const APP_JS = 'console.log("precompressed")'.repeat(50);
writeFileSync(path.join(consoleDir, 'assets', 'main-5678.js'), APP_JS);
writeFileSync(path.join(consoleDir, 'assets', 'main-5678.js.br'), brotliCompressSync(APP_JS));
writeFileSync(path.join(consoleDir, 'assets', 'main-5678.js.gz'), gzipSync(APP_JS));

describe('in dev', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CONSOLE_DIR: consoleDir, NODE_ENV: 'development' });
  });
  afterAll(() => t.close());

  it('serves the console at / and its routes, assets cached for good, unknown /api paths stay JSON 404s', async () => {
    for (const p of ['/', '/portal/chat/123', '/approvals']) {
      const res = await t.request('GET', p);
      expect([p, res.status, res.headers.get('content-type')]).toEqual([p, 200, expect.stringContaining('text/html')]);
      expect(res.text).toContain('Warden console');
    }
    const asset = await t.request('GET', '/assets/app-1234.js');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await t.request('GET', '/')).headers.get('cache-control')).toBe('no-cache');
    const unknown = await t.request('GET', '/api/nope');
    expect([unknown.status, unknown.body]).toEqual([
      404,
      { statusCode: 404, error: 'Not Found', message: 'Cannot GET /api/nope' },
    ]);
    expect((await t.request('GET', '/api/health')).body).toMatchObject({ status: 'ok' });
  });

  it('sends the precompressed copy the browser accepts (brotli first, else gzip, else as is), varying on Accept-Encoding', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const res = await fetch(`${t.url}/assets/main-5678.js`, { headers: { 'accept-encoding': accept } });
      const sent = Number(res.headers.get('content-length'));
      expect([accept, res.status, res.headers.get('content-encoding'), await res.text()]).toEqual([
        accept,
        200,
        encoding,
        APP_JS,
      ]);
      expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(/javascript/);
      if (encoding) expect(sent).toBeLessThan(APP_JS.length / 5);
    }
  });

  it('dev sign-in mints a token that works on the API; bad input is a 400 naming the field', async () => {
    expect((await t.request('GET', '/api/auth/config')).body).toEqual({
      mode: 'dev',
      dev_sign_in: true,
      oidc_issuer: null,
      oidc_client_id: null,
      oidc_scope: null,
    });
    const res = await t.request('POST', '/api/dev/sign-in', { body: { sub: 'mia', org: 'acme', roles: ['admin'] } });
    expect(res.status).toBe(200);
    const me = await t.request('GET', '/api/me', { token: res.body.token });
    expect(me.body).toMatchObject({ sub: 'mia', roles: ['admin'] });
    const bad = await t.request('POST', '/api/dev/sign-in', { body: { sub: 'a b', org: '' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.message)).toMatch(/sub may contain/);
    expect(JSON.stringify(bad.body.message)).toMatch(/org/);
  });
});

describe.each([
  // Production with dev tokens explicitly allowed (#16): the dev sign-in route must still not exist.
  ['production', { NODE_ENV: 'production', AUTH_ALLOW_DEV_IN_PRODUCTION: '1' }],
  [
    'OIDC auth',
    {
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_JWKS_URL: 'http://127.0.0.1:9/jwks',
      OIDC_AUDIENCE: 'warden',
    },
  ],
])('in %s', (_, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CONSOLE_DIR: consoleDir, ...env });
  });
  afterAll(() => t.close());

  it('there is no dev sign-in: the route answers like one that does not exist', async () => {
    const res = await t.request('POST', '/api/dev/sign-in', {
      body: { sub: 'mallory', org: 'acme', roles: ['admin'] },
    });
    expect([res.status, res.body]).toEqual([
      404,
      { statusCode: 404, error: 'Not Found', message: 'Cannot POST /api/dev/sign-in' },
    ]);
    expect((await t.request('GET', '/api/auth/config')).body).toMatchObject({ dev_sign_in: false });
    expect((await t.request('GET', '/')).text).toContain('Warden console');
  });
});
