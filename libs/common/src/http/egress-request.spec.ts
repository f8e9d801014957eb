import type { ConfigService } from '@nestjs/config';
import type { ServerResponse } from 'node:http';
import { startHttpFake, type HttpFake } from '../../../../test/fakes/http-fake.js';
import { AppConfig } from '../config/app-config.js';
import { EgressPolicy, EgressRefusedError } from './egress.js';

/** `EgressPolicy.request`: what the connector executor and the OpenAI SDK read of it, and the policy on every hop. */
describe('EgressPolicy.request', () => {
  let server: HttpFake;
  const egress = new EgressPolicy(
    new AppConfig({
      getOrThrow: () => ({ NODE_ENV: 'test', EGRESS_ALLOW: '127.0.0.1/32' }),
    } as unknown as ConfigService),
  );

  beforeAll(async () => {
    server = await startHttpFake((req, res: ServerResponse) => {
      if (req.path === '/hop') {
        res.writeHead(302, { location: '/paid' });
        res.end();
      } else if (req.path === '/away') {
        res.writeHead(302, { location: `http://127.0.0.2:${server.port}/paid` });
        res.end();
      } else if (req.path === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-7' });
        res.write('data: 1\n\n');
        res.end('data: [DONE]\n\n');
      } else if (req.path === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"no such purchase"}');
      } else return { paid: true, got: req.body };
    });
  });
  afterAll(() => server.close());

  it('sends the method, headers and body, and answers status, headers and the body as JSON', async () => {
    const res = await egress.request(`${server.url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'call-1' },
      body: '{"amount":100}',
    });
    expect([res.ok, res.status, res.headers.get('content-type')]).toEqual([true, 200, 'application/json']);
    expect(await res.json()).toEqual({ paid: true, got: { amount: 100 } });
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', headers: { 'idempotency-key': 'call-1' } });
  });

  it('takes headers as the SDK builds them (a Headers object)', async () => {
    await egress.request(`${server.url}/pay`, { method: 'GET', headers: new Headers({ 'x-stainless-lang': 'js' }) });
    expect(server.requests.at(-1)?.headers['x-stainless-lang']).toBe('js');
  });

  it('a failed call is not ok and keeps its body to read', async () => {
    const res = await egress.request(`${server.url}/missing`);
    expect([res.ok, res.status]).toEqual([false, 404]);
    expect(await res.text()).toBe('{"error":"no such purchase"}');
  });

  it('iterates a streamed body as bytes', async () => {
    const res = await egress.request(`${server.url}/stream`);
    let text = '';
    for await (const chunk of res.body) text += Buffer.from(chunk).toString('utf8');
    expect(text).toBe('data: 1\n\ndata: [DONE]\n\n');
    expect(res.headers.get('x-request-id')).toBe('req-7');
  });

  it('follows a redirect within the allowed addresses', async () => {
    const res = await egress.request(`${server.url}/hop`);
    expect(await res.json()).toMatchObject({ paid: true });
    expect(server.requests.slice(-2).map((r) => r.path)).toEqual(['/hop', '/paid']);
  });

  it('refuses a redirect to an address outside the policy, before dialling it', async () => {
    const before = server.requests.length;
    await expect(egress.request(`${server.url}/away`)).rejects.toThrow(EgressRefusedError);
    expect(server.requests.slice(before).map((r) => r.path)).toEqual(['/away']);
  });

  it('refuses a refused address literal', async () => {
    await expect(egress.request(`http://10.0.0.1:9/pay`)).rejects.toThrow(/egress refused: 10\.0\.0\.1/);
  });

  it('stops when its signal is aborted', async () => {
    await expect(
      egress.request(`${server.url}/pay`, { signal: AbortSignal.abort(new Error('run stopped')) }),
    ).rejects.toThrow('run stopped');
  });
});
