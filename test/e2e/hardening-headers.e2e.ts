import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app.js';

const consoleDir = mkdtempSync(path.join(tmpdir(), 'warden-console-'));
writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>Warden console</title>');
mkdirSync(path.join(consoleDir, 'assets'));
writeFileSync(path.join(consoleDir, 'assets', 'app-1234.js'), 'console.log("hi")');

/** The CSP as a map of directive -> sources. */
function csp(headers: Headers): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name, sources);
  }
  return out;
}

/**
 * Issue #29 break 10: neither the console nor the API sent a Content-Security-Policy, frame-ancestors /
 * X-Frame-Options or nosniff, so any site could frame the console. (The browser suites under test/browser run the
 * console under this policy and fail on any CSP violation.)
 */
describe('security headers on every response (PostgreSQL)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp({ CONSOLE_DIR: consoleDir, NODE_ENV: 'development' });
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(() => t?.close());

  it.each([
    ['the console index', 'GET', '/', undefined],
    ['a console route (index.html)', 'GET', '/approvals', undefined],
    ['a console asset', 'GET', '/assets/app-1234.js', undefined],
    ['an API answer', 'GET', '/api/health', undefined],
    ['an authenticated API answer', 'GET', '/api/me', 'admin'],
    ['an API error (401)', 'GET', '/api/agents', undefined],
    ['an unknown API path (404)', 'GET', '/api/nope', undefined],
    ['a bad request (400)', 'POST', '/api/agents', 'admin'],
    ['the metrics', 'GET', '/metrics', undefined],
  ])('%s: CSP, no framing, nosniff, no referrer', async (_, method, url, who) => {
    const res = await t.request(method, url, {
      token: who ? admin : undefined,
      body: method === 'POST' ? { name: '' } : undefined,
    });
    const policy = csp(res.headers);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'self'"]);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('styles: the console own and inline ones (Mantine injects <style> tags), nothing from elsewhere', async () => {
    const policy = csp((await t.request('GET', '/')).headers);
    expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
  });
});

describe('with OIDC, the console may also reach its identity provider (and nothing else)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      CONSOLE_DIR: consoleDir,
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: 'http://127.0.0.1:9/realms/acme',
      OIDC_JWKS_URL: 'http://127.0.0.1:9/jwks',
      OIDC_AUDIENCE: 'warden',
    });
  });
  afterAll(() => t?.close());

  it('connect-src names the issuer origin (discovery and token requests go there from the browser)', async () => {
    const policy = csp((await t.request('GET', '/')).headers);
    expect(policy.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:9']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  });
});
