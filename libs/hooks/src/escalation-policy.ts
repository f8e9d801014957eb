import { parseApproverPolicy } from './approver-policy.js';

/** `confirmation.remind_after_s`, `escalate_after_s`, `escalate_to` (README "Reminders, escalation, reassignment"). */
export interface EscalationPolicy {
  /** A reminder message goes to the request's channel this long after the card (once). */
  remindAfterS?: number;
  /** This long after the card, the request is escalated (once): more approvers, a card to another channel. */
  escalateAfterS?: number;
  escalateTo?: { approvers?: string[]; channelId?: string };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_DELAY_S = 7 * 24 * 3600;

/** Reads and checks the escalation keys of a `confirmation` object; problems name the key. */
export function parseEscalationPolicy(
  c: Record<string, unknown>,
  at: string,
): { escalation: EscalationPolicy; problems: string[] } {
  const problems: string[] = [];
  const delay = (key: string): number | undefined => {
    const v = c[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !(v > 0) || v > MAX_DELAY_S) {
      problems.push(`${at}.${key} must be a number of seconds between 0 and ${MAX_DELAY_S}`);
      return undefined;
    }
    return v;
  };
  const escalation: EscalationPolicy = {
    remindAfterS: delay('remind_after_s'),
    escalateAfterS: delay('escalate_after_s'),
  };
  const to = c.escalate_to;
  if (to !== undefined) {
    if (!isObject(to) || (to.approvers === undefined && to.channel_id === undefined)) {
      problems.push(`${at}.escalate_to must be an object with approvers and/or channel_id`);
    } else {
      const parsed = parseApproverPolicy(
        { approvers: to.approvers },
        { at: `${at}.escalate_to`, legacyScope: 'org_admins', forbidSelfApproval: false },
      );
      problems.push(...parsed.problems);
      if (to.channel_id !== undefined && typeof to.channel_id !== 'string')
        problems.push(`${at}.escalate_to.channel_id must be a string`);
      escalation.escalateTo = {
        approvers: parsed.policy.approvers,
        channelId: typeof to.channel_id === 'string' ? to.channel_id : undefined,
      };
    }
  }
  if (escalation.escalateAfterS !== undefined && !escalation.escalateTo)
    problems.push(`${at}.escalate_after_s needs escalate_to (whom to escalate to)`);
  if (escalation.escalateTo && escalation.escalateAfterS === undefined)
    problems.push(`${at}.escalate_to needs escalate_after_s (when to escalate)`);
  return { escalation, problems };
}
