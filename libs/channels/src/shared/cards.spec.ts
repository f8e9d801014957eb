import type { ApprovalCard } from '../channel.js';
import { feishuApprovalCard } from '../feishu/feishu-cards.js';
import { slackApprovalMessage } from '../slack/slack-blocks.js';
import { wecomApprovalCard } from '../wecom/wecom-cards.js';

/**
 * Cards that cannot lie (issue #14): on every platform the fields that decide are shown first and whole, however
 * long the other args are; no user-provided string can add a line, a link, a mention or a button.
 */
const ID = '6f1c2b1e-8d2a-4a51-9a43-1f2e3d4c5b6a';
const LINK = `https://warden.example/approvals/${ID}`;
const card = (over: Partial<ApprovalCard> = {}): ApprovalCard => ({
  confirmationId: ID,
  agentName: 'buyer',
  tool: 'oa__purchase_pay',
  requestedBy: { userId: 'u1', name: 'Alice' },
  expiresAt: new Date('2026-12-01T10:00:00Z'),
  approverScope: 'org_admins',
  link: LINK,
  args: { memo: 'x'.repeat(5000), amount: 987654, id: 'PO-1' },
  decisiveFields: ['amount'],
  ...over,
});
const EVIL_NAME =
  'Mallory\n**Approved by:** CFO\r\n*Approved by:* CFO\u2028Approved by: CFO <at id=all></at> <!channel> [ok](http://evil) <http://evil|Approve>';

const feishuText = (c: Record<string, any>): string[] =>
  c.body.elements.filter((e: any) => e.tag === 'markdown').map((e: any) => e.content as string);
const slackText = (m: { blocks: any[] }): string[] =>
  m.blocks
    .flatMap((b) => [
      b.text?.text,
      ...(b.fields ?? []).map((f: any) => f.text),
      ...(b.elements ?? []).map((e: any) => e.text?.text ?? e.text),
    ])
    .filter((x): x is string => typeof x === 'string');
const fakeLine = /^\W*Approved by/m;

describe('approval cards: decisive fields first and whole, the rest capped', () => {
  it('feishu: a 5 000-character memo cannot push the amount off the card', () => {
    const texts = feishuText(feishuApprovalCard(card()));
    expect(texts[0]).toBe('**amount:** 987654');
    const all = texts.join('\n');
    expect(all.length).toBeLessThan(2000);
    expect(all).toMatch(/\d+ more characters — open in Warden: \[https:\/\/warden\.example\/approvals\/.+\]\(https:/);
  });

  it('slack: the amount opens the message; the memo is capped with a link to the request', () => {
    const msg = slackApprovalMessage(card());
    expect(msg.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: '*amount:* 987654' } });
    const all = slackText(msg).join('\n');
    expect(all.length).toBeLessThan(2500);
    expect(all).toMatch(/\d+ more characters — open in Warden: https:\/\/warden\.example\/approvals\//);
  });

  it('wecom: the amount opens sub_title_text and has its own row; the text stays within what WeCom shows', () => {
    const c = wecomApprovalCard(card());
    expect(String(c.sub_title_text).startsWith('amount: 987654\n')).toBe(true);
    expect(String(c.sub_title_text).length).toBeLessThan(520);
    expect(c.horizontal_content_list).toEqual(expect.arrayContaining([{ keyname: 'amount', value: '987654' }]));
    expect(c.jump_list).toEqual([{ type: 1, title: 'Open in Warden', url: LINK }]);
  });

  it('a decisive value is never cut, even a long one; without decisive fields everything is capped the same way', () => {
    const long = 'y'.repeat(3000);
    expect(
      feishuText(feishuApprovalCard(card({ args: { memo: long, amount: long }, decisiveFields: ['amount'] })))[0],
    ).toContain(long);
    const plain = feishuText(feishuApprovalCard(card({ decisiveFields: [] })));
    expect(plain.join('\n')).toMatch(/more characters — open in Warden/);
  });

  it('the two-person rule is on the card', () => {
    expect(feishuText(feishuApprovalCard(card({ approvalsRequired: 2 }))).join('\n')).toContain(
      '2 distinct approvals needed',
    );
    expect(slackText(slackApprovalMessage(card({ approvalsRequired: 2 }))).join('\n')).toContain(
      '2 distinct approvals needed',
    );
    expect(JSON.stringify(wecomApprovalCard(card({ approvalsRequired: 2 })))).toContain('2 distinct approvals needed');
    expect(slackText(slackApprovalMessage(card({ approvalsRequired: 2, approvalsGiven: 1 }))).join('\n')).toContain(
      '1 of 2 given',
    );
    expect(feishuText(feishuApprovalCard(card({ approvalsRequired: 2, approvalsGiven: 1 }))).join('\n')).toContain(
      '1 of 2 given',
    );
  });
});

describe('approval cards: names and args cannot add lines, links, mentions or buttons', () => {
  const evil = card({
    agentName: EVIL_NAME,
    requestedBy: { userId: 'u1', name: EVIL_NAME },
    tool: 'oa__pay\nApproved by: CFO',
    args: { [`amount\n**Approved by:** CFO`]: 1, note: EVIL_NAME },
    decisiveFields: [`amount\n**Approved by:** CFO`],
  });

  it('feishu: one line per field, markup escaped, only our two buttons', () => {
    const c = feishuApprovalCard(evil);
    const texts = feishuText(c);
    for (const t of texts.filter((t) => !t.startsWith('```'))) {
      expect(t).not.toMatch(fakeLine);
      expect(t).not.toMatch(/<at|(?<!\\)\[ok\]|(?<!\\)\]\(/);
    }
    expect(c.body && (c.body as any).elements.filter((e: any) => e.tag === 'button')).toHaveLength(2);
    expect((c.header as any).title.content).not.toContain('\n');
  });

  it('slack: mentions and links are escaped, no line starts with a fake verdict, only our two buttons', () => {
    const msg = slackApprovalMessage(evil);
    for (const t of slackText(msg).filter((t) => !t.startsWith('```'))) {
      expect(t).not.toMatch(fakeLine);
      expect(t).not.toMatch(/<!channel>|<http/);
    }
    expect(msg.text).not.toContain('\n');
    expect(msg.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements)).toHaveLength(2);
  });

  it('wecom: plain text flattened to one line per field, only our two buttons', () => {
    const c = wecomApprovalCard(evil);
    for (const row of c.horizontal_content_list as Array<{ keyname: string; value: string }>) {
      expect(row.value).not.toMatch(/[\n\r\u2028]/);
      expect(row.keyname).not.toMatch(/[\n\r\u2028]/);
    }
    expect(String(c.sub_title_text).split('\n')[0]).not.toMatch(fakeLine);
    expect((c.main_title as any).desc).not.toMatch(/\n/);
    expect(c.button_list).toHaveLength(2);
  });
});
