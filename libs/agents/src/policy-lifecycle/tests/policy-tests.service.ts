import { Injectable } from '@nestjs/common';
import { AuditTrail, BadInputError, canonicalJson, ConflictError, NotFoundError } from '@warden/common';
import { PolicyVersions, type PolicySubject } from '@warden/hooks';
import { DataSource } from 'typeorm';
import { AgentsService } from '../../agents/agents.service.js';
import { CandidateCheck } from '../candidate-check.js';
import type { Candidate } from '../policy-evaluator.js';
import { parseCases, type PolicyTestCase } from './policy-test-case.js';
import { PolicyTestRunner, type PolicyTestResult } from './policy-test-runner.js';
import { PolicyTestsStore } from './policy-tests.store.js';

/** POST …/test: the candidate (a config, a version, or none: the live policy) and, optionally, cases to run instead. */
export interface PolicyTestRequest {
  config?: Record<string, unknown>;
  version?: number;
  cases?: unknown;
}

const label = (s: PolicySubject) => (s.type === 'agent' ? `the policy of agent ${s.id}` : 'the org hooks');

/**
 * Policy tests (#34): an agent's policy or the org's hooks carries test cases (a call, and the decision and rewrite
 * the policy must give it); they run against a candidate on demand, and before every save of a new version, which
 * they refuse unless forced (PolicyTestGate).
 */
@Injectable()
export class PolicyTestsService {
  constructor(
    private readonly store: PolicyTestsStore,
    private readonly runner: PolicyTestRunner,
    private readonly check: CandidateCheck,
    private readonly versions: PolicyVersions,
    private readonly agents: AgentsService,
    private readonly audit: AuditTrail,
    private readonly dataSource: DataSource,
  ) {}

  async get(s: PolicySubject) {
    await this.subjectExists(s);
    return this.store.get(s);
  }

  /** Replaces the subject's cases (400 naming each malformed case or unknown tool; nothing changes then). Audited. */
  async replace(s: PolicySubject, raw: unknown, by: string) {
    await this.subjectExists(s);
    const cases = await this.parsed(s, raw);
    return this.dataSource.transaction(async (m) => {
      const before = await this.store.get(s, m);
      const saved = await this.store.replace(s, cases, by, m);
      await this.audit.configChange(
        {
          orgId: s.orgId,
          actor: by,
          entityType: s.type === 'agent' ? 'agent' : 'org_hooks',
          entityId: s.id,
          change: 'tests_replaced',
          before: { policy_tests: before.cases },
          after: { policy_tests: saved.cases },
        },
        m,
      );
      return saved;
    });
  }

  /** Runs the cases (the request's, else the stored ones) against the candidate; per case pass/fail and what it got. */
  async run(s: PolicySubject, body: PolicyTestRequest) {
    await this.subjectExists(s);
    if (body.config !== undefined && body.version !== undefined)
      throw new BadInputError('give at most one of config or version');
    const cases = body.cases === undefined ? (await this.store.get(s)).cases : await this.parsed(s, body.cases);
    const candidate = await this.candidate(s, body);
    const results = await this.runner.run(s, cases, candidate);
    return {
      candidate: body.config !== undefined ? 'config' : body.version !== undefined ? `version ${body.version}` : 'live',
      ...counts(results),
      results,
    };
  }

  /**
   * Before a save of `config` as the subject's next version: runs its stored cases (none, or a config equal to the
   * latest version's: nothing to check). Failing cases → 409 naming them, unless `force`: then they are returned.
   */
  async checkSave(s: PolicySubject, config: Record<string, unknown>, force: boolean): Promise<string[]> {
    const { cases } = await this.store.get(s);
    if (cases.length === 0) return [];
    const latest = await this.versions.latest(s);
    if (latest !== null && canonicalJson((await this.versions.get(s, latest)).config) === canonicalJson(config))
      return [];
    const failing = (await this.runner.run(s, cases, { type: s.type, config })).filter((r) => !r.pass);
    if (failing.length === 0 || force) return failing.map((r) => r.name);
    const named = failing.map((r) => `"${r.name}" (${r.failures.join('; ')})`);
    throw new ConflictError(
      `the policy tests of ${label(s)} fail on this change: ${named.join(', ')}; ` +
        'fix the policy or its tests, or save with force: true',
      { failing: failing.map((r) => ({ name: r.name, failures: r.failures })) },
    );
  }

  private async parsed(s: PolicySubject, raw: unknown): Promise<PolicyTestCase[]> {
    const { cases, problems } = parseCases(raw);
    if (problems.length) throw new BadInputError(`the test cases are invalid: ${problems.join('; ')}`, problems);
    await this.runner.checkTools(s.orgId, cases);
    return cases;
  }

  private async candidate(s: PolicySubject, body: PolicyTestRequest): Promise<Candidate | undefined> {
    let config = body.config;
    if (body.version !== undefined) {
      config = (
        await this.versions.get(s, body.version).catch((err: unknown) => {
          if (err instanceof NotFoundError)
            throw new BadInputError(`version ${body.version} is not a version of ${label(s)}`);
          throw err;
        })
      ).config;
    }
    if (config === undefined) return undefined;
    const candidate = { type: s.type, config };
    await this.check.check(s.orgId, candidate, s.type === 'agent' ? s.id : undefined);
    return candidate;
  }

  private async subjectExists(s: PolicySubject): Promise<void> {
    if (s.type === 'agent') await this.agents.find(s.orgId, s.id);
  }
}

function counts(results: PolicyTestResult[]) {
  const failed = results.filter((r) => !r.pass).length;
  return { passed: failed === 0, total: results.length, failed };
}
