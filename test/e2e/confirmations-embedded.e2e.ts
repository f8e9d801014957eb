import { jest } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mintDevToken } from '@warden/auth';
import { ConfirmationGateHook, ConfirmationWaiter } from '@warden/confirmations';
import { ConfirmationStore } from '../../libs/confirmations/src/confirmation.store.js';
import { HookPoint, type HookContext, type HookResult } from '@warden/hooks';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../apps/api/src/bootstrap.js';
import { until } from '../support/eventually.js';
import { TEST_DEV_SECRET } from '../support/test-app.js';

jest.setTimeout(120_000);

describe('confirmations on the embedded PGlite database', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-conf-pglite-'));
  let app: NestExpressApplication;
  let url: string;

  beforeAll(async () => {
    app = await createApp({
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: TEST_DEV_SECRET,
      PGLITE_DIR: path.join(dir, 'pglite'),
      SEED_DEMO: 'false',
      APP_ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef',
      // A minute between polls: a quick wake-up can only be the in-process one.
      CONFIRMATION_POLL_MS: '60000',
    });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, p: string, token: string, body?: unknown) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('an inbox decision wakes the waiting gate in-process (no LISTEN connection on PGlite)', async () => {
    expect(app.get(ConfirmationWaiter).isListening).toBe(false);
    const alice = await mintDevToken(TEST_DEV_SECRET, { sub: 'alice', org: 'acme', roles: [] });
    const bob = await mintDevToken(TEST_DEV_SECRET, { sub: 'bob', org: 'acme', roles: [] });
    const me = (await call('GET', '/api/me', alice)).body;
    await call('GET', '/api/me', bob);
    const events: Array<{ type: string; data: Record<string, any> }> = [];
    const ctx: HookContext = {
      point: HookPoint.PreToolUse,
      toolName: 'oa__purchase_pay',
      toolArgs: { amount: 60000 },
      agentId: randomUUID(),
      userId: me.user_id,
      orgId: me.org_id,
      runId: randomUUID(),
      callId: 'call_1',
      surface: 'chat',
      metadata: { requiresConfirmation: true },
      emit: (type, data) => Promise.resolve(void events.push({ type, data })),
      signal: new AbortController().signal,
    };
    const result: Promise<HookResult> = Promise.resolve(app.get(ConfirmationGateHook).execute(ctx));
    const id = await until(
      'confirmation_pending',
      () => events.find((e) => e.type === 'confirmation_pending')?.data.confirmation_id as string | undefined,
    );
    // The default approver scope is the initiator.
    expect((await call('POST', `/api/confirmations/${id}/decision`, bob, { decision: 'approve' })).status).toBe(403);
    // Woken in-process: from the decision to the gate's answer, the waiter ran no query (no poll, no wake-up read).
    // The gate's own first look (for a decision made before it waited) is made first: on a loaded machine it could
    // still be on its way here.
    const queries = app.get(ConfirmationStore).queryCounts;
    await until("the waiter's first look", () => queries.wake >= 1 || undefined);
    const before = { poll: queries.poll, wake: queries.wake };
    const decided = await call('POST', `/api/confirmations/${id}/decision`, alice, { decision: 'approve' });
    expect(decided.status).toBe(200);
    expect((await result).allow).toBe(true);
    expect({ poll: queries.poll, wake: queries.wake }).toEqual(before);
    expect(events.map((e) => e.type)).toEqual(['confirmation_pending', 'confirmation_resolved']);
  });
});
