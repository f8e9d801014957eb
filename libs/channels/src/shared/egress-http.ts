import type * as lark from '@larksuiteoapi/node-sdk';
import type { EgressPolicy } from '@warden/common';
import { loadedLark } from './chat-sdks.js';

type LarkHttp = NonNullable<ConstructorParameters<typeof lark.Client>[0]['httpInstance']>;

/**
 * The Feishu SDK's own axios instance (its interceptors unwrap replies), with every request dialled through the
 * egress policy's agents, so a channel's base_url cannot reach internal addresses.
 */
export function egressLarkHttp(egress: EgressPolicy): LarkHttp {
  const base = loadedLark().defaultHttpInstance;
  const via = <O>(opts?: O): O =>
    ({ ...(opts ?? {}), httpAgent: egress.httpAgent, httpsAgent: egress.httpsAgent, proxy: false }) as O;
  return {
    request: (opts) => base.request(via(opts)),
    get: (url, opts) => base.get(url, via(opts)),
    delete: (url, opts) => base.delete(url, via(opts)),
    head: (url, opts) => base.head(url, via(opts)),
    options: (url, opts) => base.options(url, via(opts)),
    post: (url, data, opts) => base.post(url, data, via(opts)),
    put: (url, data, opts) => base.put(url, data, via(opts)),
    patch: (url, data, opts) => base.patch(url, data, via(opts)),
  } as LarkHttp;
}
