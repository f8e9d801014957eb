import type { Decision, Difference } from './policy-decision.js';

/** What a replay found, in numbers and in one sentence. */
export interface ReplaySummary {
  calls: number;
  changed: number;
  /** Approvals the candidate would have required beyond the live policy's, summed over the calls. */
  more_approvals: number;
  fewer_approvals: number;
  newly_blocked: number;
  newly_unblocked: number;
  newly_asked: number;
  no_longer_asked: number;
  changed_rewrites: number;
  /** Calls where a command/HTTP hook of the candidate was not run (their verdict is unknown). */
  incomplete: number;
  text: string;
}

export function emptySummary(): ReplaySummary {
  return {
    calls: 0,
    changed: 0,
    more_approvals: 0,
    fewer_approvals: 0,
    newly_blocked: 0,
    newly_unblocked: 0,
    newly_asked: 0,
    no_longer_asked: 0,
    changed_rewrites: 0,
    incomplete: 0,
    text: '',
  };
}

/** Counts one call into `s`. */
export function count(
  s: ReplaySummary,
  before: Decision,
  after: Decision,
  diff: Difference[],
  skipped: string[],
): void {
  s.calls++;
  if (diff.length) s.changed++;
  if (skipped.length) s.incomplete++;
  const delta = after.approvals - before.approvals;
  if (delta > 0) s.more_approvals += delta;
  if (delta < 0) s.fewer_approvals -= delta;
  if (diff.includes('would_block')) s.newly_blocked++;
  if (diff.includes('would_unblock')) s.newly_unblocked++;
  if (diff.includes('would_ask')) s.newly_asked++;
  if (diff.includes('would_not_ask')) s.no_longer_asked++;
  if (diff.includes('rewrite_changed')) s.changed_rewrites++;
}

/** "this change would have required 37 more approvals, blocked 2 calls, changed 0 rewrites (of 500 calls)". */
export function summaryText(s: ReplaySummary): string {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  return (
    `this change would have required ${plural(s.more_approvals, 'more approval')}, ` +
    `blocked ${plural(s.newly_blocked, 'call')}, ` +
    `changed ${plural(s.changed_rewrites, 'rewrite')} (${s.changed} of ${plural(s.calls, 'call')} decided differently)`
  );
}
