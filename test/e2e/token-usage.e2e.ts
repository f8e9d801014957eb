import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

/** Token use as the model server reports it: per model turn in the run's trace, summed on the run. */
describe('token use of a run', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;

  const script =
    (...replies: FakeReply[]) =>
    (_: ChatRequestBody, i: number) =>
      replies[i] ?? { content: 'out of script' };
  const agent = async (stream: boolean) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `buyer-${stream ? 'streaming' : 'whole'}`,
        instructions: 'You look up purchase orders.',
        model_config_json: {
          model: {
            provider: 'openai',
            base_url: llm.baseUrl,
            model: 'fake-1',
            api_key_env: 'WARDEN_LLM_KEY_FAKE',
            stream,
          },
          tools: ['oa__get_purchase'],
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const runOf = async (events: Array<{ event: string; data: any }>) => {
    const runId = events.find((e) => e.event === 'run')?.data.run_id as string;
    const res = await t.request('GET', `/api/runs/${runId}`, { token: admin });
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'hello' }));
    oa = await startHttpFake((req) => ({ id: 'PO-1', path: req.path }));
    t = await startTestApp({
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
    });
    admin = await t.token('alice', 'acme', ['admin']);
    const res = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await oa?.close();
  });
  beforeEach(() => (llm.requests.length = 0));

  it.each([true, false])('stream %s: each model turn carries what it used, and the run the sum', async (stream) => {
    llm.setHandler(
      script(
        {
          tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-1' } }],
          usage: { prompt_tokens: 812, completion_tokens: 23 },
        },
        { content: 'PO-1 is open.', usage: { prompt_tokens: 901, completion_tokens: 9 } },
      ),
    );
    const res = await chat(t, admin, { agent_id: await agent(stream), message: 'Look up PO-1' });
    expect(res.events.at(-1)?.data.status).toBe('completed');
    // The model was asked for its usage while streaming (OpenAI sends it only when asked).
    expect(llm.requests.every((r) => !r.stream || r.stream_options?.include_usage === true)).toBe(true);
    const run = await runOf(res.events);
    expect(run.trace.find((e: any) => e.type === 'tool_call').usage).toEqual({
      prompt_tokens: 812,
      completion_tokens: 23,
      total_tokens: 835,
    });
    expect(run.trace.find((e: any) => e.type === 'answer')).toMatchObject({
      content: 'PO-1 is open.',
      usage: { prompt_tokens: 901, completion_tokens: 9, total_tokens: 910 },
    });
    expect(run.usage).toEqual({ prompt_tokens: 1713, completion_tokens: 32, total_tokens: 1745, reported_calls: 2 });
  });

  it('a model server that reports no usage: the run says so (null), the turns carry none', async () => {
    llm.setHandler(
      script(
        { tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-1' } }], usage: null },
        { content: 'Open.', usage: null },
      ),
    );
    const res = await chat(t, admin, { agent_id: await agent(true), message: 'Look up PO-1' });
    const run = await runOf(res.events);
    expect(run.status).toBe('completed');
    expect(run.usage).toBeNull();
    expect(run.trace.filter((e: any) => 'usage' in e)).toEqual([]);
  });

  it('only the first of the calls one turn proposed carries the turn’s usage (counted once)', async () => {
    llm.setHandler(
      script(
        {
          tool_calls: [
            { name: 'oa__get_purchase', args: { id: 'PO-1' } },
            { name: 'oa__get_purchase', args: { id: 'PO-2' } },
          ],
          usage: { prompt_tokens: 500, completion_tokens: 40 },
        },
        { content: 'Both open.', usage: { prompt_tokens: 600, completion_tokens: 5 } },
      ),
    );
    const res = await chat(t, admin, { agent_id: await agent(true), message: 'Look up PO-1 and PO-2' });
    const run = await runOf(res.events);
    const calls = run.trace.filter((e: any) => e.type === 'tool_call');
    expect(calls.map((c: any) => c.usage?.total_tokens ?? null)).toEqual([540, null]);
    expect(run.usage).toMatchObject({ total_tokens: 1145, reported_calls: 2 });
  });
});
