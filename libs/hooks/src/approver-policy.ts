import { Environment } from '@marcbachmann/cel-js';
import { celRegexProblem } from '@warden/common';
import { compiledCel } from './cel-compiled.js';
import type { ApprovalTier } from './hook.types.js';

/**
 * `confirmation.approvers` and `confirmation.tiers` (README "Who may approve"): who may decide a gated call and
 * how many distinct people must approve it. Parsed and checked here, once, for agents, workflow nodes and the
 * dry run; enforced by the confirmations module on every decision path.
 *
 * An approver entry is one of `initiator`, `agent_owner`, `org_members`, `org_admins`, `channel` (the channel's
 * own approver list), `role:<name>` (SSO roles claim) or `users:<sub>,<sub>` (also written `{ "users": [...] }`).
 */
export interface ApproverPolicy {
  approvers?: string[];
  tiers?: ApprovalTier[];
}

const PLAIN_KINDS = ['initiator', 'agent_owner', 'org_members', 'org_admins', 'channel'];
const MAX_APPROVALS = 5;
const celEnv = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('args', 'map');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const firstLine = (m: string) => m.split('\n')[0].trim();

/** Normalises one entry; returns a problem (string starting with "!") for a malformed one. */
function normaliseEntry(entry: unknown): string {
  if (isObject(entry) && Object.keys(entry).length === 1 && Array.isArray(entry.users)) {
    const subs = entry.users.filter((s): s is string => typeof s === 'string' && s.trim() !== '');
    if (subs.length !== entry.users.length || subs.length === 0) return '!users must be a non-empty list of user subs';
    return `users:${subs.map((s) => s.trim()).join(',')}`;
  }
  if (typeof entry !== 'string') return '!each approver must be a string such as "org_admins" or "role:finance"';
  const e = entry.trim();
  if (PLAIN_KINDS.includes(e)) return e;
  if (/^role:[^\s,]+$/.test(e)) return e;
  if (/^users:[^\s,]+(,[^\s,]+)*$/.test(e)) return e;
  return `!"${entry}" is not an approver kind (use ${PLAIN_KINDS.join(', ')}, role:<name>, users:<sub>,<sub>)`;
}

function parseApproverList(raw: unknown, at: string, problems: string[]): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push(`${at} must be a non-empty list (nobody could approve an empty one)`);
    return undefined;
  }
  const out: string[] = [];
  for (const entry of raw) {
    const e = normaliseEntry(entry);
    if (e.startsWith('!')) problems.push(`${at}: ${e.slice(1)}`);
    else out.push(e);
  }
  return out.length === raw.length ? out : undefined;
}

/**
 * The most distinct people a list could ever name, or Infinity (a role, the org, a channel list). The requester
 * counts only when self-approval is allowed: `["initiator"]` with forbid_self_approval names nobody.
 */
function headcount(approvers: string[], forbidSelf: boolean): number {
  let n = 0;
  for (const a of approvers) {
    if (a === 'initiator') n += forbidSelf ? 0 : 1;
    else if (a === 'agent_owner') n += 1;
    else if (a.startsWith('users:')) n += new Set(a.slice(6).split(',')).size;
    else return Infinity;
  }
  return n;
}

/**
 * Reads `approvers` / `tiers` from a `confirmation` object. `legacyScope` is the old `approver_scope`, used when
 * `approvers` is absent. Rejects what nobody could satisfy: an empty list, `initiator` alone under
 * forbid_self_approval, a tier needing more distinct approvers than its list can name.
 */
export function parseApproverPolicy(
  c: Record<string, unknown>,
  opts: { at: string; legacyScope: string; forbidSelfApproval: boolean },
): { policy: ApproverPolicy; problems: string[] } {
  const problems: string[] = [];
  const approvers = parseApproverList(c.approvers, `${opts.at}.approvers`, problems);
  const base = approvers ?? [opts.legacyScope];
  if (approvers && headcount(approvers, opts.forbidSelfApproval) === 0) {
    problems.push(`${opts.at}.approvers ${JSON.stringify(approvers)} with forbid_self_approval: nobody could approve`);
  }
  let tiers: ApprovalTier[] | undefined;
  if (c.tiers !== undefined) {
    if (!Array.isArray(c.tiers)) problems.push(`${opts.at}.tiers must be a list of { when, approvals, approvers? }`);
    else
      tiers = c.tiers.flatMap((t, i) =>
        parseTier(t, `${opts.at}.tiers[${i}]`, base, opts.forbidSelfApproval, problems),
      );
  }
  return { policy: { approvers, tiers }, problems };
}

function parseTier(t: unknown, at: string, base: string[], forbidSelf: boolean, problems: string[]): ApprovalTier[] {
  if (!isObject(t)) {
    problems.push(`${at} must be an object { when, approvals, approvers? }`);
    return [];
  }
  const before = problems.length;
  if (typeof t.when !== 'string' || t.when.trim() === '')
    problems.push(`${at}.when must be a CEL condition on args, e.g. "args.amount > 500000"`);
  else {
    const problem = checkTierCondition(t.when);
    if (problem) problems.push(`${at}.when "${t.when}" is not a valid CEL condition: ${problem}`);
  }
  const approvals = t.approvals ?? 1;
  const approvalsValid =
    typeof approvals === 'number' && Number.isInteger(approvals) && approvals >= 1 && approvals <= MAX_APPROVALS;
  if (!approvalsValid) problems.push(`${at}.approvals must be an integer between 1 and ${MAX_APPROVALS}`);
  const own = parseApproverList(t.approvers, `${at}.approvers`, problems);
  // The type checks repeat what `problems` already says, for the compiler.
  if (problems.length > before || !approvalsValid || typeof t.when !== 'string') return [];
  const list = own ?? base;
  if (headcount(list, forbidSelf) < approvals) {
    problems.push(
      `${at} needs ${approvals} distinct approvers but ${JSON.stringify(list)} ` +
        `can name at most ${headcount(list, forbidSelf)}: nobody could satisfy it`,
    );
    return [];
  }
  return [{ when: t.when, approvals, ...(own ? { approvers: own } : {}) }];
}

function checkTierCondition(expression: string): string | null {
  try {
    const checked = celEnv.check(expression);
    if (!checked.valid) return firstLine(checked.error?.message ?? 'invalid expression');
    if (checked.type && checked.type !== 'bool' && checked.type !== 'dyn')
      return `must evaluate to a bool, not ${checked.type}`;
    return celRegexProblem(celEnv.parse(expression).ast);
  } catch (err) {
    return firstLine((err as Error).message);
  }
}

/**
 * The tier that applies to these args: the first whose condition holds. A condition that cannot be evaluated for
 * these args (a missing key, a wrong type) counts as holding: the stricter path, fail closed.
 */
export function matchTier(
  tiers: ApprovalTier[] | undefined,
  args: Record<string, unknown>,
): { index: number; tier: ApprovalTier } | null {
  for (const [index, tier] of (tiers ?? []).entries()) {
    let holds: boolean;
    try {
      // A condition calling matches() (saved before it was refused) is not run (it throws):
      // the tier holds, fail closed.
      holds = compiledCel(celEnv, tier.when)({ args }) !== false;
    } catch {
      holds = true;
    }
    if (holds) return { index, tier };
  }
  return null;
}

/**
 * The arg names a CEL condition reads (`args.amount`, `args["amount"]`): these decide, so the card shows them first.
 */
export function argsReadBy(expression: string | null | undefined): string[] {
  if (!expression) return [];
  const names = new Set<string>();
  for (const m of expression.matchAll(/\bargs\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*["']([^"']+)["']\s*\])/g)) {
    // One of the two groups took part; the other is undefined, whatever RegExpMatchArray's element type says.
    const groups: ReadonlyArray<string | undefined> = m;
    const name = groups[1] ?? groups[2];
    if (name) names.add(name);
  }
  for (const m of expression.matchAll(/\bhas\(\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\)/g)) names.add(m[1]);
  return [...names];
}

/**
 * A tier condition tried on example args (POST /api/hooks/cel-check), with the checks a save makes and the verdict
 * matchTier would reach: `holds` is true also when the condition cannot be evaluated on these args (fail closed),
 * and `error` then says why.
 */
export function tryTierCondition(
  expression: string,
  args: Record<string, unknown>,
): { valid: boolean; problem: string | null; holds: boolean | null; error: string | null } {
  const problem = checkTierCondition(expression);
  if (problem) return { valid: false, problem, holds: null, error: null };
  try {
    const value: unknown = celEnv.parse(expression)({
      args: JSON.parse(JSON.stringify(args)) as Record<string, unknown>,
    });
    if (typeof value === 'boolean') return { valid: true, problem: null, holds: value, error: null };
    return {
      valid: true,
      problem: null,
      holds: true,
      error: `returned ${typeof value}, not a bool: counts as holding`,
    };
  } catch (err) {
    return {
      valid: true,
      problem: null,
      holds: true,
      error: `${firstLine((err as Error).message)}: counts as holding`,
    };
  }
}
