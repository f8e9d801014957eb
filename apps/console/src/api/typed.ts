import createClient from 'openapi-fetch';
import { ApiError, authHeaders, reportUnauthorized } from './client';
import type { components, paths } from './schema';

/** Response and request shapes, generated from the server's DTOs (`npm run openapi`). */
export type Schemas = components['schemas'];

/** The typed API client: paths, params, bodies and responses checked against the OpenAPI document at compile time. */
export const http = createClient<paths>({ baseUrl: '/' });
http.use({
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders())) request.headers.set(k, v);
    return request;
  },
});

/** The data of a 2xx answer, or an ApiError carrying the server's message (written for a person to act on). */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data: body, error, response } = await call;
  if (response.ok) return body as T;
  if (response.status === 401) reportUnauthorized();
  const e = (error ?? {}) as { message?: string | string[]; problems?: string[] };
  const message = Array.isArray(e.message)
    ? e.message.join('; ')
    : (e.message ?? `${response.status} ${response.statusText}`);
  throw new ApiError(response.status, message, e.problems ?? (Array.isArray(e.message) ? e.message : []));
}
