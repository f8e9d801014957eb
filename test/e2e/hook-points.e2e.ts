import { Injectable, Module } from '@nestjs/common';
import {
  Hook,
  PreModelCallHook,
  StopHook,
  UserPromptSubmitHook,
  type HookContext,
  type HookResult,
} from '@warden/hooks';
import path from 'node:path';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

const CARD = /\b(?:\d[ -]?){12,15}\d\b/;

@Hook({ name: 'card_prompt_block', priority: 10, description: 'Test: refuses prompts with a card number.' })
@Injectable()
class CardPromptBlockHook extends UserPromptSubmitHook {
  execute(ctx: HookContext): HookResult {
    return CARD.test(ctx.toolResult ?? '') ? { allow: false, error: 'card numbers may not be sent to the model' } : {};
  }
}

@Hook({ name: 'email_redact', priority: 20, description: 'Test: redacts e-mail addresses in the final answer.' })
@Injectable()
class EmailRedactHook extends StopHook {
  execute(ctx: HookContext): HookResult {
    const answer = ctx.toolResult ?? '';
    const redacted = answer.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[e-mail redacted]');
    return redacted === answer ? {} : { modifiedResult: redacted, sideEffects: ['e-mail redacted'] };
  }
}

@Hook({ name: 'continue_once', priority: 10, description: 'Test: makes the model continue once.' })
@Injectable()
class ContinueOnceHook extends StopHook {
  execute(ctx: HookContext): HookResult {
    return ctx.metadata.stopHookActive ? {} : { allow: false, error: 'Also give the purchase order number.' };
  }
}

@Hook({
  name: 'model_allow_list',
  priority: 10,
  description: 'Test: only allow-listed models.',
  configSchema: { type: 'object', properties: { models: { type: 'array' } }, required: ['models'] },
})
@Injectable()
class ModelAllowListHook extends PreModelCallHook<{ models: string[] }> {
  execute(ctx: HookContext, config: { models: string[] }): HookResult {
    const model = ctx.metadata.model!.model;
    return config.models.includes(model) ? {} : { allow: false, error: `model ${model} is not allow-listed` };
  }
}

@Module({ providers: [CardPromptBlockHook, EmailRedactHook, ContinueOnceHook, ModelAllowListHook] })
class HookPointsTestModule {}

/** Acceptance 1 of #21: UserPromptSubmit, Stop, PostToolUseFailure and PreModelCall, as class and YAML hooks. */
describe('hook points around the model', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;
  const model = (name = 'fake') => ({
    provider: 'openai',
    base_url: llm.baseUrl,
    model: name,
    api_key_env: 'WARDEN_LLM_KEY_FAKE',
  });
  const createAgent = async (config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: `a-${Math.random()}`, instructions: 'You help.', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const yaml = (...lines: string[]) => ['hooks:', ...lines].join('\n');

  beforeAll(async () => {
    [llm, oa] = await Promise.all([
      startFakeOpenAI(() => ({ content: 'ok' })),
      startHttpFake((req, res) => {
        if (req.path === '/purchases') {
          res.writeHead(503, { 'content-type': 'text/plain' });
          res.end('upstream connect error: 10.2.3.4:8443 refused');
        }
        return { ok: true };
      }),
    ]);
    t = await startTestApp(
      {
        WARDEN_LLM_KEY_FAKE: 'sk-fake',
        LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
        HOOKS_DIR: path.resolve('test/fixtures/hooks'),
      },
      { imports: [HookPointsTestModule] },
    );
    admin = await t.token('alice', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([llm?.close(), oa?.close()]);
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  it('UserPromptSubmit blocks a prompt with a card number: the model is never called', async () => {
    const agent = await createAgent({ model: model(), hooks: { class_hooks: ['card_prompt_block'] } });
    const res = await chat(t, admin, { agent_id: agent, message: 'pay with 4111 1111 1111 1111 please' });
    expect(res.events.at(-1)!.data.status).toBe('refused');
    expect(res.events.find((e) => e.event === 'error')!.data.message).toBe(
      'the prompt was blocked by card_prompt_block: card numbers may not be sent to the model',
    );
    expect(res.events.find((e) => e.event === 'hook')!.data).toMatchObject({
      point: 'UserPromptSubmit',
      hook: 'card_prompt_block',
      outcome: 'block',
    });
    expect(llm.requests).toHaveLength(0);
  });

  it('a YAML UserPromptSubmit hook redacts the card number: the model and the stored run see the redacted text', async () => {
    const agent = await createAgent({
      model: model(),
      hooks: {
        yaml: yaml('  - name: redact-card', '    event: UserPromptSubmit', '    module: ./redact-card-prompt.mjs'),
      },
    });
    const res = await chat(t, admin, { agent_id: agent, message: 'pay with 4111 1111 1111 1111 please' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    const user = llm.requests[0].messages.filter((m) => m.role === 'user').at(-1)!.content;
    expect(user).toBe('pay with [card redacted] please');
    const run = await t.request('GET', `/api/runs/${res.events[0].data.run_id}`, { token: admin });
    expect(JSON.stringify(run.body)).not.toContain('4111 1111');
  });

  it('Stop redacts an e-mail in the answer (nothing of it streams first)', async () => {
    llm.setHandler(() => ({ content: 'Write to bob@example.com for the invoice.' }));
    const agent = await createAgent({ model: model(), hooks: { class_hooks: ['email_redact'] } });
    const res = await chat(t, admin, { agent_id: agent, message: 'who do I write to?' });
    expect(res.events.find((e) => e.event === 'answer')!.data.content).toBe(
      'Write to [e-mail redacted] for the invoice.',
    );
    expect(res.text).not.toContain('bob@example.com');
  });

  it('Stop makes the model continue once with the reason, then the answer stands', async () => {
    let n = 0;
    llm.setHandler(() => ({ content: ++n === 1 ? 'The order is paid.' : 'The order PO-7 is paid.' }));
    const agent = await createAgent({ model: model(), hooks: { class_hooks: ['continue_once'] } });
    const res = await chat(t, admin, { agent_id: agent, message: 'is it paid?' });
    expect(res.events.find((e) => e.event === 'answer')!.data.content).toBe('The order PO-7 is paid.');
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1].messages.slice(-2)).toEqual([
      // The blocked answer is withheld everywhere, the model's own context included (#28 break 12).
      expect.objectContaining({ role: 'assistant', content: '[answer withheld: blocked by continue_once]' }),
      expect.objectContaining({ role: 'user', content: 'Also give the purchase order number.' }),
    ]);
    const stops = res.events.filter((e) => e.event === 'hook' && e.data.point === 'Stop').map((e) => e.data.outcome);
    expect(stops).toEqual(['block', 'allow']);
  });

  it('PostToolUseFailure replaces the raw error and adds context the model sees', async () => {
    let n = 0;
    llm.setHandler(() =>
      ++n === 1 ? { tool_calls: [{ name: 'oa__list_purchases', args: {} }] } : { content: 'retry after 14:00' },
    );
    const agent = await createAgent({
      model: model(),
      tools: ['oa__*'],
      hooks: {
        yaml: yaml(
          '  - name: failure-context',
          '    event: PostToolUseFailure',
          '    matcher: "oa__*"',
          '    module: ./failure-context.mjs',
        ),
      },
    });
    const res = await chat(t, admin, { agent_id: agent, message: 'list' });
    const seen = llm.requests[1].messages.find((m) => m.role === 'tool')!.content;
    expect(seen).toBe(
      'The call oa__list_purchases failed.\n\nThe purchasing system is in maintenance until 14:00; tell the user to retry after that.',
    );
    expect(seen).not.toContain('10.2.3.4');
    expect(res.events.find((e) => e.event === 'observation')!.data).toMatchObject({ ok: false });
  });

  it('PreModelCall blocks a model that is not allow-listed: nothing is sent to it', async () => {
    const agent = await createAgent({
      model: model('gpt-unapproved'),
      hooks: { class_hooks: [{ name: 'model_allow_list', config: { models: ['fake'] } }] },
    });
    const res = await chat(t, admin, { agent_id: agent, message: 'hello' });
    expect(res.events.at(-1)!.data.status).toBe('failed');
    expect(res.events.find((e) => e.event === 'error')!.data.message).toBe(
      'the model call was blocked by model_allow_list: model gpt-unapproved is not allow-listed',
    );
    expect(llm.requests).toHaveLength(0);

    const allowed = await createAgent({
      model: model('fake'),
      hooks: { class_hooks: [{ name: 'model_allow_list', config: { models: ['fake'] } }] },
    });
    llm.setHandler(() => ({ content: 'hi' }));
    expect((await chat(t, admin, { agent_id: allowed, message: 'hello' })).events.at(-1)!.data.status).toBe(
      'completed',
    );
  });

  it('a YAML hook on a point without tools may not have a matcher; block on a non-blocking point is refused', async () => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'bad',
        instructions: '',
        model_config_json: {
          model: model(),
          hooks: {
            yaml: yaml(
              '  - event: Stop',
              '    matcher: "oa__*"',
              '    module: ./mask-emails.mjs',
              '  - event: PostToolUseFailure',
              '    on_error: block',
              '    module: ./failure-context.mjs',
            ),
          },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('matcher: Stop hooks have no tool to match');
    expect(JSON.stringify(res.body)).toContain('(PostToolUseFailure hooks cannot block)');
  });

  it('POST /api/hooks/dry-run tries the new points: a blocked prompt, a redacted answer, a refused model', async () => {
    const dry = (body: Record<string, unknown>) => t.request('POST', '/api/hooks/dry-run', { token: admin, body });
    const prompt = await dry({
      model_config_json: { hooks: { class_hooks: ['card_prompt_block'] } },
      point: 'UserPromptSubmit',
      text: 'card 4111 1111 1111 1111',
    });
    expect(prompt.status).toBe(200);
    expect(prompt.body).toEqual([
      {
        hook: 'card_prompt_block',
        point: 'UserPromptSubmit',
        outcome: 'block',
        detail: 'card numbers may not be sent to the model',
      },
    ]);
    const stop = await dry({
      model_config_json: { hooks: { class_hooks: ['email_redact'] } },
      point: 'Stop',
      text: 'mail bob@example.com',
    });
    expect(stop.body).toEqual([{ hook: 'email_redact', point: 'Stop', outcome: 'rewrite', detail: 'e-mail redacted' }]);
    const modelCall = await dry({
      model_config_json: { hooks: { class_hooks: [{ name: 'model_allow_list', config: { models: ['fake'] } }] } },
      point: 'PreModelCall',
      text: 'gpt-unapproved',
    });
    expect(modelCall.body).toEqual([
      {
        hook: 'model_allow_list',
        point: 'PreModelCall',
        outcome: 'block',
        detail: 'model gpt-unapproved is not allow-listed',
      },
    ]);
    expect(llm.requests).toHaveLength(0);
    expect((await dry({ model_config_json: {}, point: 'Nope', text: 'x' })).status).toBe(400);
    expect((await dry({ model_config_json: {} })).status).toBe(400);
  });

  it('DAG runs: the synthesized answer is redacted by Stop hooks, and the planning call passes PreModelCall', async () => {
    llm.setHandler((body) => {
      const text = body.messages.map((m) => m.content).join('\n');
      if (text.includes('Plan the work'))
        return { content: JSON.stringify({ steps: [{ id: 'a', task: 'Find the contact', depends_on: [] }] }) };
      if (text.includes('steps are done')) return { content: 'Write to carol@example.com.' };
      return { content: 'carol@example.com' };
    });
    const agent = await createAgent({ model: model(), hooks: { class_hooks: ['email_redact'] } });
    const res = await chat(t, admin, { agent_id: agent, message: 'who?', mode: 'dag' });
    const runId = res.events[0].data.run_id;
    expect(
      res.events.filter((e) => e.event === 'answer' && e.data.run_id === runId).map((e) => e.data.content),
    ).toEqual(['Write to [e-mail redacted].']);
    expect(res.text).not.toContain('carol@example.com');

    llm.requests.length = 0;
    const blocked = await createAgent({
      model: model('gpt-unapproved'),
      hooks: { class_hooks: [{ name: 'model_allow_list', config: { models: ['fake'] } }] },
    });
    const refused = await chat(t, admin, { agent_id: blocked, message: 'who?', mode: 'dag' });
    expect(refused.events.at(-1)!.data.status).toBe('failed');
    expect(llm.requests).toHaveLength(0);
  });
});
