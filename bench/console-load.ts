/**
 * The console's first load on a throttled link: bytes over the wire and the time until the page is usable (the
 * sign-in form; then, signed in as a member, the Portal's agent list), for an empty cache. Run against a running
 * server (`npm start`): `WARDEN_URL=http://127.0.0.1:3000 npm run bench:console`. Profiles are DevTools' presets.
 */
import { chromium } from 'playwright-core';
import { measureFirstLoad } from '../test/support/first-load.js';

const base = process.env.WARDEN_URL ?? 'http://127.0.0.1:3000';
const kbps = (n: number) => (n * 1000) / 8;
const PROFILES = {
  'no throttling': undefined,
  'Slow 4G (562 ms RTT, 1.44 Mbit/s down)': {
    latency: 562.5,
    downloadThroughput: kbps(1440),
    uploadThroughput: kbps(675),
  },
  'Fast 4G (165 ms RTT, 8.1 Mbit/s down)': {
    latency: 165,
    downloadThroughput: kbps(8100),
    uploadThroughput: kbps(3600),
  },
};

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const res = await fetch(`${base}/api/dev/sign-in`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ sub: 'mia', org: 'demo', roles: [] }),
});
const { token, expires_at } = (await res.json()) as { token: string; expires_at: string };
const session = JSON.stringify({ token, sub: 'mia', org: 'demo', roles: [], expiresAt: expires_at });

for (const [name, throttle] of Object.entries(PROFILES)) {
  const fresh = await browser.newContext({ baseURL: base });
  fresh.setDefaultTimeout(60_000);
  const signIn = await measureFirstLoad(
    fresh,
    '/',
    (p) => p.getByRole('form', { name: 'Dev sign-in' }).waitFor(),
    throttle,
  );
  await fresh.addInitScript(`sessionStorage.setItem('warden.session', ${JSON.stringify(session)})`);
  const portal = await measureFirstLoad(
    fresh,
    '/portal',
    (p) =>
      p
        .getByRole('link', { name: /^Chat with/ })
        .first()
        .waitFor(),
    throttle,
  );
  await fresh.close();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log(
    `${name}: sign-in ${kb(signIn.total)} usable in ${signIn.ms} ms; Portal ${kb(portal.total)} usable in ${portal.ms} ms`,
  );
}
await browser.close();
