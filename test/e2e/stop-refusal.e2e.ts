import { Injectable, Module } from '@nestjs/common';
import { Hook, StopHook, type HookContext, type HookResult } from '@warden/hooks';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

const LEAK = 'vault code 7731-ALPHA';

@Hook({ name: 'no_vault_codes', priority: 10, description: 'Test: an answer may never carry a vault code.' })
@Injectable()
class NoVaultCodesHook extends StopHook {
  execute(ctx: HookContext): HookResult {
    return (ctx.toolResult ?? '').includes('vault code')
      ? { allow: false, error: 'answers may not contain vault codes' }
      : {};
  }
}

@Module({ providers: [NoVaultCodesHook] })
class StopRefusalTestModule {}

/**
 * Break 12 of #28: a Stop hook's block was fail-open — after 3 continuations (ReAct), or at once in DAG mode, the
 * blocked answer was delivered. Now the blocked answer reaches nobody and the run ends `refused` with the reason.
 */
describe('a Stop hook block is fail-closed', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let member: string;

  const agent = async (admin: string) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `vault-${Math.random()}`,
        instructions: 'You help.',
        model_config_json: {
          model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
          hooks: { class_hooks: ['no_vault_codes'] },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  /** Everything a user can read about the run afterwards: the run, its replayed events, its conversation. */
  const storedViews = async (runId: string) => {
    const run = await t.request('GET', `/api/runs/${runId}`, { token: member });
    const events = await t.request('GET', `/api/runs/${runId}/events`, { token: member });
    const conversations = await t.request('GET', '/api/conversations', { token: member });
    const reopened = await Promise.all(
      conversations.body.map((c: { id: string }) => t.request('GET', `/api/conversations/${c.id}`, { token: member })),
    );
    return {
      run: run.body,
      text: [run.text, events.text, conversations.text, ...reopened.map((r) => r.text)].join('\n'),
    };
  };

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: `The ${LEAK}.` }));
    t = await startTestApp(
      { WARDEN_LLM_KEY_FAKE: 'sk-fake', LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}` },
      { imports: [StopRefusalTestModule] },
    );
    member = await t.token('bob', 'acme', []);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  it('ReAct: after the retry limit the run ends refused with the reason; the blocked answer is never streamed or stored', async () => {
    const admin = await t.token('alice', 'acme', ['admin']);
    llm.setHandler(() => ({ content: `The ${LEAK}.` }));
    const res = await chat(t, member, { agent_id: await agent(admin), message: 'what is the vault code?' });
    expect(llm.requests).toHaveLength(4); // the answer, then 3 continuations
    expect(res.events.at(-1)!.data.status).toBe('refused');
    expect(res.events.some((e) => e.event === 'answer')).toBe(false);
    expect(res.events.find((e) => e.event === 'error')!.data.message).toContain('answers may not contain vault codes');
    expect(res.text).not.toContain(LEAK);
    // Nor does the model's next turn read it back as what it said.
    for (const request of llm.requests) expect(JSON.stringify(request.messages)).not.toContain(LEAK);
    const views = await storedViews(res.events[0].data.run_id);
    expect(views.run).toMatchObject({ status: 'refused' });
    expect(views.text).not.toContain(LEAK);
  });

  it('DAG (chosen by a member): a blocked synthesized answer ends the run refused at once, never delivered', async () => {
    const admin = await t.token('alice', 'acme', ['admin']);
    llm.setHandler((body) => {
      const text = body.messages.map((m) => m.content).join('\n');
      if (text.includes('Plan the work'))
        return { content: JSON.stringify({ steps: [{ id: 'a', task: 'Look it up', depends_on: [] }] }) };
      if (text.includes('steps are done')) return { content: `The ${LEAK}.` };
      return { content: 'found it' };
    });
    const res = await chat(t, member, {
      agent_id: await agent(admin),
      message: 'what is the vault code?',
      mode: 'dag',
    });
    const runId = res.events[0].data.run_id;
    expect(res.events.at(-1)!.data).toMatchObject({ run_id: runId, status: 'refused' });
    expect(res.events.filter((e) => e.event === 'answer' && e.data.run_id === runId)).toHaveLength(0);
    expect(res.events.find((e) => e.event === 'error' && e.data.run_id === runId)!.data.message).toContain(
      'answers may not contain vault codes',
    );
    expect(res.text).not.toContain(LEAK);
    expect((await storedViews(runId)).text).not.toContain(LEAK);
  });
});
