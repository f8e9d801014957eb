import { createHash } from 'node:crypto';
import type { WecomConfig, WecomReply } from './wecom-config.js';

/**
 * A WeCom app's access_token per corp + secret (7200 s, refreshed 5 minutes early, or when WeCom refused it). One
 * fetch at a time per app: concurrent callers share it — WeCom may void a token when another is issued, so parallel
 * fetches could void each other's.
 */
export class WecomTokens {
  private readonly tokens = new Map<string, { token: string; until: number }>();
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(private readonly fetch: (url: string) => Promise<Response>) {}

  /** The app's token; `stale`: one WeCom refused, so a newer one is needed (fetched once, however many callers ask). */
  get(cfg: Pick<WecomConfig, 'baseUrl' | 'corpId' | 'corpSecret'>, stale?: string): Promise<string> {
    const key = `${cfg.baseUrl}|${cfg.corpId}|${createHash('sha256').update(cfg.corpSecret).digest('hex')}`;
    const hit = this.tokens.get(key);
    if (hit && hit.token !== stale && hit.until > Date.now()) return Promise.resolve(hit.token);
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.fetchToken(cfg, key).finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return pending;
  }

  private async fetchToken(cfg: Pick<WecomConfig, 'baseUrl' | 'corpId' | 'corpSecret'>, key: string): Promise<string> {
    const query = `corpid=${encodeURIComponent(cfg.corpId)}&corpsecret=${encodeURIComponent(cfg.corpSecret)}`;
    const url = `${cfg.baseUrl}/cgi-bin/gettoken?${query}`;
    let body: WecomReply & { access_token?: string; expires_in?: number };
    try {
      const res = await this.fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw new Error(`WeCom token request failed: ${(err as Error).message}`);
    }
    if (body.errcode !== 0 || !body.access_token)
      throw new Error(`WeCom refused the token request: errcode ${body.errcode} ${body.errmsg ?? ''}`.trim());
    this.tokens.set(key, {
      token: body.access_token,
      until: Date.now() + Math.max(60, (body.expires_in ?? 7200) - 300) * 1000,
    });
    return body.access_token;
  }
}
