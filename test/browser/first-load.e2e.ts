import type { Browser } from 'playwright-core';
import { apiToken, newPerson, startConsole } from '../support/browser.js';
import { measureFirstLoad } from '../support/first-load.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * The console's first load, as a browser with an empty cache sees it: at most 200 kB over the wire (what the DevTools
 * protocol counts: compressed bodies and headers), scripts and styles sent precompressed. The time to usable on a
 * slow link is measured by bench/console-load.ts (not asserted here: timing varies by machine).
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
const LIMIT = 200 * 1024;

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
}, 60_000);

afterAll(() => close?.());

it('the sign-in page and the signed-in Portal each load in at most 200 kB, scripts and styles compressed', async () => {
  const { context } = await newPerson(browser, server.url);
  const signIn = await measureFirstLoad(context, '/', (page) =>
    page.getByRole('form', { name: 'Dev sign-in' }).waitFor(),
  );
  // Signed in (the session as the console keeps it for this tab), the Portal with its agents.
  const token = await apiToken(server.url, { sub: 'mia', org: 'demo', roles: [] });
  const session = {
    token,
    sub: 'mia',
    org: 'demo',
    roles: [],
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
  };
  await context.addInitScript(`sessionStorage.setItem('warden.session', ${JSON.stringify(JSON.stringify(session))})`);
  const portal = await measureFirstLoad(context, '/portal', (page) =>
    page.getByRole('link', { name: 'Chat with demo-buyer' }).waitFor(),
  );
  for (const load of [signIn, portal]) {
    const assets = load.resources.filter((r) => /\/assets\/.+\.(js|css)$/.test(r.url));
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.filter((r) => r.encoding !== 'br')).toEqual([]);
    expect({ total: load.total, within: load.total <= LIMIT }).toEqual({ total: load.total, within: true });
  }
  await context.close();
}, 60_000);
