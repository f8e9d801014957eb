import { createHash } from 'node:crypto';
import {
  feishuCardAction,
  feishuEncrypt,
  feishuLegacyCardAction,
  feishuRequest,
} from '../../../../test/fakes/fake-feishu.js';
import type { CallbackRequest, ChannelRecord, ParsedCallback } from '../channel.js';
import { loadLark } from '../shared/chat-sdks.js';
import { decryptFeishu, feishuSignature } from './feishu-crypto.js';
import { feishuApprovalCard, feishuDecidedCard } from './feishu-cards.js';
import { FeishuChannel } from './feishu.channel.js';

const ID = '6f1c2b1e-8d2a-4a51-9a43-1f2e3d4c5b6a';
const TOKEN = 'verif-token-123';
const KEY = 'encrypt-key-456';

const record = (config: Record<string, unknown> = {}): ChannelRecord => ({
  id: 'c1',
  orgId: 'o1',
  type: 'feishu',
  name: 'ops',
  config: { app_id: 'cli_1', app_secret: 's', chat_id: 'oc_1', verification_token: TOKEN, ...config },
});
const req = (r: { body: string; headers: Record<string, string> }): CallbackRequest => ({
  method: 'POST',
  rawBody: Buffer.from(r.body),
  headers: r.headers,
  query: {},
});
const click = (extra: Partial<Parameters<typeof feishuCardAction>[0]> = {}) =>
  feishuCardAction({
    verificationToken: TOKEN,
    value: { confirmation_id: ID, decision: 'approve' },
    openId: 'ou_alice',
    ...extra,
  });
const reason = (p: ParsedCallback) => (p.kind === 'rejected' ? `${p.reply.status} ${p.reason}` : p.kind);

describe('Feishu crypto (channels.md vectors)', () => {
  beforeAll(() => loadLark());

  it('decrypts the documented vector to "hello world"', () => {
    expect(decryptFeishu('test key', 'P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=')).toBe('hello world');
  });

  it('round-trips what the fake encrypts, and signs SHA256(ts + nonce + key + body)', () => {
    expect(decryptFeishu(KEY, feishuEncrypt(KEY, '{"a":1}'))).toBe('{"a":1}');
    expect(feishuSignature('1', 'n', KEY, '{}')).toBe(createHash('sha256').update(`1n${KEY}{}`).digest('hex'));
  });
});

describe('FeishuChannel.parseCallback', () => {
  const feishu = new FeishuChannel();

  it('turns a schema 2.0 click with the right verification token into a decision', async () => {
    const p = await feishu.parseCallback(record(), req(feishuRequest(click({ eventId: 'ev_1' }), {})));
    expect(p).toMatchObject({
      kind: 'decision',
      confirmationId: ID,
      decision: 'approve',
      actor: { platform: 'feishu', externalId: 'ou_alice' },
      eventId: 'ev_1',
    });
  });

  it.each([
    [
      'a wrong verification token',
      () => feishuRequest(click({ verificationToken: 'nope' }), {}),
      /401 wrong verification token/,
    ],
    [
      'a stale create_time',
      () => feishuRequest(click({ createTimeMs: Date.now() - 6 * 60_000 }), {}),
      /401 stale event/,
    ],
    ['malformed JSON', () => ({ body: '{not json', headers: {} }), /400 body is not JSON/],
    ['an unknown payload', () => feishuRequest({ hello: 'world' }, {}), /400 unrecognised/],
    [
      'a legacy card action without a signature',
      () =>
        feishuRequest(
          feishuLegacyCardAction({ value: { confirmation_id: ID, decision: 'approve' }, openId: 'ou_a' }),
          {},
        ),
      /401 legacy/,
    ],
  ])('rejects %s', async (_, build, expected) => {
    expect(reason(await feishu.parseCallback(record(), req(build())))).toMatch(expected);
  });

  describe('with an encrypt key', () => {
    const rec = record({ encrypt_key: KEY });
    it('accepts an encrypted, signed click', async () => {
      const p = await feishu.parseCallback(rec, req(feishuRequest(click(), { encryptKey: KEY, encrypt: true })));
      expect(p).toMatchObject({ kind: 'decision', confirmationId: ID });
    });
    it.each([
      [
        'a bad signature',
        () => feishuRequest(click(), { encryptKey: KEY, encrypt: true, badSignature: true }),
        /401 bad signature/,
      ],
      [
        'a stale signed timestamp',
        () =>
          feishuRequest(click(), { encryptKey: KEY, encrypt: true, timestampS: Math.floor(Date.now() / 1000) - 301 }),
        /401 stale request/,
      ],
      [
        'a missing signature',
        () => feishuRequest(click(), { encryptKey: KEY, encrypt: true, sign: 'none' }),
        /401 missing X-Lark-Signature/,
      ],
      [
        'a body encrypted with another key',
        () => feishuRequest(click(), { encryptKey: 'other', encrypt: true, sign: 'none' }),
        /400 encrypted body cannot be decrypted/,
      ],
    ])('rejects %s', async (_, build, expected) => {
      expect(reason(await feishu.parseCallback(rec, req(build())))).toMatch(expected);
    });
    it('answers an encrypted url_verification (no signature headers) after checking the token', async () => {
      const ok = await feishu.parseCallback(
        rec,
        req(
          feishuRequest(
            { type: 'url_verification', challenge: 'ch-1', token: TOKEN },
            { encryptKey: KEY, encrypt: true, sign: 'none' },
          ),
        ),
      );
      expect(ok).toEqual({ kind: 'reply', reply: { status: 200, body: { challenge: 'ch-1' } } });
      const bad = await feishu.parseCallback(
        rec,
        req(
          feishuRequest(
            { type: 'url_verification', challenge: 'ch-1', token: 'x' },
            { encryptKey: KEY, encrypt: true, sign: 'none' },
          ),
        ),
      );
      expect(reason(bad)).toMatch(/401 wrong verification token/);
    });
  });

  it('accepts a legacy card action signed with the verification token (SHA1)', async () => {
    const legacy = feishuLegacyCardAction({
      value: JSON.stringify({ confirmation_id: ID, decision: 'reject' }),
      openId: 'ou_bob',
    });
    const p = await feishu.parseCallback(
      record(),
      req(feishuRequest(legacy, { sign: 'legacy', verificationToken: TOKEN })),
    );
    expect(p).toMatchObject({
      kind: 'decision',
      confirmationId: ID,
      decision: 'reject',
      actor: { externalId: 'ou_bob' },
    });
  });

  it('answers a click whose value names no confirmation with an error toast', async () => {
    const p = await feishu.parseCallback(record(), req(feishuRequest(click({ value: { decision: 'approve' } }), {})));
    expect(p).toMatchObject({ kind: 'rejected', reply: { status: 200, body: { toast: { type: 'error' } } } });
  });

  it('renders the decided card in the reply only when the decision went through', async () => {
    const p = await feishu.parseCallback(record(), req(feishuRequest(click(), {})));
    if (p.kind !== 'decision') throw new Error('expected a decision');
    const decided = {
      confirmationId: ID,
      tool: 'oa__pay',
      args: {},
      status: 'approved' as const,
      decidedBy: 'alice',
      decidedAt: new Date(),
    };
    const ok = p.respond({ ok: true, message: 'Approved by alice', decided }).body as any;
    expect(ok.toast).toEqual({ type: 'success', content: 'Approved by alice' });
    expect(ok.card.type).toBe('raw');
    expect(JSON.stringify(ok.card.data)).toContain('Approved by:** alice');
    const refused = p.respond({ ok: false, message: 'you are not allowed to approve this request' }).body as any;
    expect(refused).toEqual({ toast: { type: 'error', content: 'you are not allowed to approve this request' } });
  });
});

describe('Feishu cards', () => {
  const card = {
    confirmationId: ID,
    agentName: 'buyer',
    tool: 'oa__purchase_pay',
    args: { amount: 60000, note: 'x'.repeat(2000) },
    requestedBy: { userId: 'u1', name: 'Alice' },
    expiresAt: new Date('2026-12-01T10:00:00Z'),
    approverScope: 'org_admins',
  };
  it('carries the confirmation id and decision in each named button, and caps the args', () => {
    const json = feishuApprovalCard(card) as any;
    expect(json.schema).toBe('2.0');
    const buttons = json.body.elements.filter((e: any) => e.tag === 'button');
    expect(buttons.map((b: any) => b.behaviors[0].value)).toEqual([
      { confirmation_id: ID, decision: 'approve' },
      { confirmation_id: ID, decision: 'reject' },
    ]);
    expect(buttons.every((b: any) => typeof b.name === 'string' && b.name.includes(ID))).toBe(true);
    const args = json.body.elements[1].content as string;
    expect(args).toContain('"amount": 60000');
    expect(args.length).toBeLessThan(1000);
  });
  it('the decided card has no buttons and says who and when', () => {
    const json = JSON.stringify(
      feishuDecidedCard({
        confirmationId: ID,
        tool: 't',
        args: {},
        status: 'rejected',
        decidedBy: 'bob',
        decidedAt: new Date('2026-12-01T10:00:00Z'),
        reason: 'too much',
      }),
    );
    expect(json).not.toContain('"button"');
    expect(json).toContain('Rejected by:** bob');
    expect(json).toContain('2026-12-01T10:00:00Z');
    expect(json).toContain('too much');
  });
});
