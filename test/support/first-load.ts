import type { BrowserContext, Page } from 'playwright-core';

export interface LoadedResource {
  url: string;
  bytes: number;
  encoding: string | null;
}

/**
 * Opens `path` in a fresh page and records what went over the wire (encoded bytes per response, headers included, as
 * the DevTools protocol counts them) until `ready` resolves. Optional throttling: DevTools' network conditions.
 */
export async function measureFirstLoad(
  context: BrowserContext,
  path: string,
  ready: (page: Page) => Promise<unknown>,
  throttle?: { latency: number; downloadThroughput: number; uploadThroughput: number },
): Promise<{ resources: LoadedResource[]; total: number; ms: number }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (throttle) await cdp.send('Network.emulateNetworkConditions', { offline: false, ...throttle });
  const byId = new Map<string, LoadedResource>();
  cdp.on('Network.responseReceived', (e) => {
    const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    byId.set(e.requestId, { url: e.response.url, bytes: 0, encoding: headers['content-encoding'] ?? null });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = byId.get(e.requestId);
    if (r) r.bytes = e.encodedDataLength;
  });
  const started = Date.now();
  await page.goto(path, { waitUntil: 'commit' });
  await ready(page);
  const ms = Date.now() - started;
  // Not 'networkidle': the console holds an event stream open (the inbox count) for as long as it runs.
  await page.waitForLoadState('load');
  const resources = [...byId.values()];
  await page.close();
  return { resources, total: resources.reduce((sum, r) => sum + r.bytes, 0), ms };
}
