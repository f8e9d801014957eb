import { createHmac, randomUUID } from 'node:crypto';
import { startHttpFake, type HttpFake } from './http-fake.js';

export interface SlackPosted {
  channel: string;
  ts: string;
  text?: string;
  blocks?: any[];
}

export interface FakeSlack extends HttpFake {
  /** Base URL to configure as `base_url` (the Web API lives under /api/). */
  apiUrl: string;
  posted: SlackPosted[];
  updates: SlackPosted[];
  /** What Warden sent to interaction response_urls, by path. */
  responses: Array<{ path: string; body: any }>;
  /** A response_url under this fake (Slack's are under hooks.slack.com). */
  responseUrl(): string;
  /** Makes chat.postMessage answer `{ ok: false, error }`; null restores success. */
  failPosts(error: string | null): void;
}

/** Slack Web API (chat.postMessage, chat.update) and interaction response_urls. */
export async function startFakeSlack(botToken: string): Promise<FakeSlack> {
  const posted: SlackPosted[] = [];
  const updates: SlackPosted[] = [];
  const responses: FakeSlack['responses'] = [];
  let failure: string | null = null;
  const field = (body: any, key: string) => body?.[key];
  const blocksOf = (body: any) => {
    const b = field(body, 'blocks');
    return typeof b === 'string' ? JSON.parse(b) : b;
  };
  const fake = await startHttpFake((req) => {
    if (req.path.startsWith('/response/')) {
      responses.push({ path: req.path, body: req.body });
      return { ok: true };
    }
    if (req.headers.authorization !== `Bearer ${botToken}`) return { ok: false, error: 'invalid_auth' };
    if (req.path === '/api/chat.postMessage') {
      if (failure) return { ok: false, error: failure };
      const msg = {
        channel: field(req.body, 'channel'),
        ts: `${Math.floor(Date.now() / 1000)}.${String(posted.length + 1).padStart(6, '0')}`,
        text: field(req.body, 'text'),
        blocks: blocksOf(req.body),
      };
      posted.push(msg);
      return { ok: true, channel: msg.channel, ts: msg.ts, message: { text: msg.text } };
    }
    if (req.path === '/api/chat.update') {
      const ts = field(req.body, 'ts');
      if (!posted.some((m) => m.ts === ts)) return { ok: false, error: 'message_not_found' };
      updates.push({
        channel: field(req.body, 'channel'),
        ts,
        text: field(req.body, 'text'),
        blocks: blocksOf(req.body),
      });
      return { ok: true, channel: field(req.body, 'channel'), ts };
    }
    return { ok: false, error: 'unknown_method' };
  });
  return Object.assign(fake, {
    apiUrl: `${fake.url}/api/`,
    posted,
    updates,
    responses,
    responseUrl: () => `${fake.url}/response/${randomUUID()}`,
    failPosts: (e: string | null) => (failure = e),
  });
}

// ---- client side: what Slack itself would send to Warden ----

export const slackSignature = (signingSecret: string, timestampS: number | string, body: string): string =>
  `v0=${createHmac('sha256', signingSecret).update(`v0:${timestampS}:${body}`).digest('hex')}`;

/** A block_actions interaction for a button whose value is `value`, form-encoded and signed. */
export function slackInteraction(opts: {
  signingSecret: string;
  value: string;
  userId: string;
  responseUrl?: string;
  timestampS?: number;
  badSignature?: boolean;
  triggerId?: string;
}): { body: string; headers: Record<string, string> } {
  const payload = {
    type: 'block_actions',
    user: { id: opts.userId, username: 'someone', team_id: 'T1' },
    team: { id: 'T1' },
    trigger_id: opts.triggerId ?? randomUUID(),
    container: { type: 'message', message_ts: '1.000001', channel_id: 'C1' },
    actions: [
      {
        action_id: 'confirmation_approve',
        block_id: 'b',
        value: opts.value,
        type: 'button',
        action_ts: String(Date.now() / 1000),
      },
    ],
    response_url: opts.responseUrl,
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = opts.timestampS ?? Math.floor(Date.now() / 1000);
  const signature = slackSignature(opts.badSignature ? 'wrong-secret' : opts.signingSecret, ts, body);
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': signature,
    },
  };
}
