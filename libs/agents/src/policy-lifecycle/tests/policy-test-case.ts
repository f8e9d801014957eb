/** What a policy test expects of one call: the decision, optionally the approvals and the args that would be sent. */
export type ExpectedDecision = 'allow' | 'ask' | 'deny';

export interface PolicyTestCase {
  /** Unique within the subject's cases: results and refusals name the case by it. */
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** Who makes the call (the user id the chain sees; default `policy-test`). */
  user?: string;
  /** The caller's roles, kept with the case (no built-in hook decides on roles today). */
  roles?: string[];
  /** For org hooks tests: the agent whose call it is (its own policy then runs too); default none. */
  agent?: string;
  expect: {
    decision: ExpectedDecision;
    /** Distinct approvals the policy requires (only with `ask`). */
    approvals?: number;
    /** The args as the chain leaves them: `null` means "not rewritten"; absent: not checked. */
    rewrite?: Record<string, unknown> | null;
  };
}

/** The most cases a subject carries. */
export const MAX_CASES = 200;

const DECISIONS: readonly ExpectedDecision[] = ['allow', 'ask', 'deny'];
const CASE_KEYS = ['name', 'tool', 'args', 'user', 'roles', 'agent', 'expect'];
const EXPECT_KEYS = ['decision', 'approvals', 'rewrite'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isName = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.trim().length > 0 && v.length <= max;

/** `raw` as test cases, or every problem, each named by its path (`cases[2].expect.decision: …`). */
export function parseCases(raw: unknown): { cases: PolicyTestCase[]; problems: string[] } {
  if (!Array.isArray(raw)) return { cases: [], problems: ['cases: must be an array of test cases'] };
  if (raw.length > MAX_CASES)
    return { cases: [], problems: [`cases: at most ${MAX_CASES} test cases (got ${raw.length})`] };
  const problems = raw.flatMap((c, i) => caseProblems(c, `cases[${i}]`));
  const seen = new Set<string>();
  raw.forEach((c: unknown, i) => {
    if (!isObject(c) || typeof c.name !== 'string') return;
    if (seen.has(c.name))
      problems.push(`cases[${i}].name: "${c.name}" is used by an earlier case (names must be unique)`);
    seen.add(c.name);
  });
  return problems.length ? { cases: [], problems } : { cases: raw as PolicyTestCase[], problems: [] };
}

function caseProblems(c: unknown, at: string): string[] {
  if (!isObject(c)) return [`${at}: must be an object with name, tool, args and expect`];
  const out = Object.keys(c)
    .filter((k) => !CASE_KEYS.includes(k))
    .map((k) => `${at}.${k}: unknown key (expected ${CASE_KEYS.join(', ')})`);
  if (!isName(c.name, 200)) out.push(`${at}.name: required, a non-empty string of at most 200 characters`);
  if (!isName(c.tool, 200)) out.push(`${at}.tool: required, the name of a tool (e.g. oa__purchase_pay)`);
  if (!isObject(c.args)) out.push(`${at}.args: required, an object (the call's arguments)`);
  if (c.user !== undefined && !isName(c.user, 200)) out.push(`${at}.user: must be a non-empty string`);
  if (c.agent !== undefined && !isName(c.agent, 64)) out.push(`${at}.agent: must be an agent id`);
  if (c.roles !== undefined && !(Array.isArray(c.roles) && c.roles.every((r) => isName(r, 100)))) {
    out.push(`${at}.roles: must be an array of role names`);
  }
  return [...out, ...expectProblems(c.expect, `${at}.expect`)];
}

function expectProblems(e: unknown, at: string): string[] {
  if (!isObject(e)) return [`${at}: required, an object with decision (allow, ask or deny)`];
  const out = Object.keys(e)
    .filter((k) => !EXPECT_KEYS.includes(k))
    .map((k) => `${at}.${k}: unknown key (expected ${EXPECT_KEYS.join(', ')})`);
  if (!DECISIONS.includes(e.decision as ExpectedDecision)) {
    out.push(`${at}.decision: must be allow, ask or deny, got ${JSON.stringify(e.decision ?? null)}`);
  }
  if (e.approvals !== undefined) {
    if (!Number.isInteger(e.approvals) || (e.approvals as number) < 1 || (e.approvals as number) > 100) {
      out.push(`${at}.approvals: must be an integer from 1 to 100`);
    } else if (e.decision !== 'ask') out.push(`${at}.approvals: only with decision ask`);
  }
  if (e.rewrite !== undefined && e.rewrite !== null && !isObject(e.rewrite)) {
    out.push(`${at}.rewrite: must be the args as rewritten (an object), or null for "not rewritten"`);
  }
  return out;
}
