import type { ServerResponse } from 'node:http';
import { startHttpFake, type HttpFake, type RecordedRequest } from './http-fake.js';

/** A policy: the document OPA would compute for `input`, or undefined when the rule is undefined for it. */
export type FakePolicy = (input: any) => unknown;

export interface FakeOpa extends HttpFake {
  /** Documents by data path, e.g. `warden/payments/decision`. */
  policies: Map<string, FakePolicy>;
}

/**
 * OPA's Data API as a policy engine serves it: `POST /v1/data/<path>` with `{ "input": ... }` answers
 * `{ "result": <document> }`, or `{}` when the document is undefined; a body without JSON is a 400 with OPA's error shape.
 */
export async function startFakeOpa(policies: Record<string, FakePolicy> = {}): Promise<FakeOpa> {
  const table = new Map(Object.entries(policies));
  const fake = await startHttpFake((req: RecordedRequest, res: ServerResponse) => {
    const path = /^\/v1\/data\/(.+)$/.exec(req.path)?.[1];
    if (req.method !== 'POST' || !path) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'resource_not_found', message: `${req.method} ${req.path}` }));
      return;
    }
    if (typeof req.body !== 'object' || req.body === null) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'invalid_parameter', message: 'body must be a JSON object' }));
      return;
    }
    const policy = table.get(path);
    const result = policy?.(req.body.input);
    return result === undefined ? {} : { result };
  });
  return Object.assign(fake, { policies: table });
}
