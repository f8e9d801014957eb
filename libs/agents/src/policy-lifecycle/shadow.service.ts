import { Injectable } from '@nestjs/common';
import { AuditTrail, NotFoundError } from '@warden/common';
import { OrgHooksService, PolicyVersions, type PolicySubject } from '@warden/hooks';
import { DataSource } from 'typeorm';
import { withPolicy } from '../agents/agent-policy.js';
import { AgentsService } from '../agents/agents.service.js';
import { CandidateCheck } from './candidate-check.js';
import { DecisionRecorder } from './decision-recorder.js';
import { label, ShadowStore, type Shadow } from './shadow-store.js';

const REPORT_LIMIT = 1000;

/**
 * Shadow deployments (#34): a candidate policy runs beside the live one on the same calls without deciding any
 * (ShadowEvaluator); its report lists the calls it would have decided differently. Promoting it saves it as the
 * subject's next live version (through the subject's own save: validated, versioned, audited); discarding ends it.
 */
@Injectable()
export class ShadowService {
  constructor(
    private readonly store: ShadowStore,
    private readonly check: CandidateCheck,
    private readonly versions: PolicyVersions,
    private readonly agents: AgentsService,
    private readonly orgHooks: OrgHooksService,
    private readonly recorder: DecisionRecorder,
    private readonly audit: AuditTrail,
    private readonly dataSource: DataSource,
  ) {}

  async deploy(s: PolicySubject, config: Record<string, unknown>, by: string, comment?: string) {
    if (s.type === 'agent') await this.agents.find(s.orgId, s.id);
    await this.check.check(s.orgId, { type: s.type, config }, s.type === 'agent' ? s.id : undefined);
    const shadow = await this.dataSource.transaction(async (m) => {
      const live = await this.versions.latest(s, m);
      const row = await this.store.deploy(s, config, live, by, comment ?? null, m);
      await this.audit.configChange(
        {
          orgId: s.orgId,
          actor: by,
          entityType: entity(s),
          entityId: s.id,
          change: 'shadow_deployed',
          before: { shadow: null },
          after: { shadow: config },
        },
        m,
      );
      return row;
    });
    return view(shadow);
  }

  async get(s: PolicySubject) {
    return view(await this.required(s));
  }

  /** What the shadow would have done differently, with counts (every decision recorded so far included). */
  async report(s: PolicySubject) {
    const shadow = await this.required(s);
    await this.recorder.drain();
    const [counts, calls] = await Promise.all([
      this.store.counts(shadow.id),
      this.store.differing(shadow.id, REPORT_LIMIT),
    ]);
    return {
      shadow: view(shadow),
      calls_seen: counts.calls,
      differing: counts.differing,
      incomplete: counts.incomplete,
      counts: counts.by,
      calls: calls.map((c) => ({
        decision_id: c.decision_id,
        run_id: c.run_id,
        call_id: c.call_id,
        agent_id: c.agent_id,
        user_id: c.user_id,
        tool: c.tool,
        args: c.args,
        at: c.created_at,
        live: {
          decision: c.live_decision,
          approvals: c.live_approvals,
          blocked_by: c.live_blocked_by,
          args_digest: c.live_args_digest,
        },
        shadow: {
          decision: c.shadow_decision,
          approvals: c.shadow_approvals,
          blocked_by: c.shadow_blocked_by,
          reason: c.shadow_reason,
          args_digest: c.shadow_args_digest,
        },
        differences: c.differences,
        skipped: c.skipped,
      })),
      truncated: counts.differing > calls.length,
    };
  }

  /** Saves the shadow as the subject's next live version, then ends it. */
  async promote(s: PolicySubject, by: string, opts: { comment?: string; force?: boolean } = {}) {
    const shadow = await this.required(s);
    const why = opts.comment ?? `promoted from shadow ${shadow.id}`;
    if (s.type === 'org_hooks') {
      await this.orgHooks.put(s.orgId, by, shadow.config, { comment: why, force: opts.force });
    } else {
      const agent = await this.agents.find(s.orgId, s.id);
      const model_config_json = withPolicy(agent.modelConfigJson, shadow.config);
      const dto = {
        name: agent.name,
        instructions: agent.instructions,
        model_config_json,
        comment: why,
        force: opts.force,
      };
      await this.agents.update(s.orgId, s.id, dto, by);
    }
    await this.dataSource.transaction((m) => this.store.end(shadow.id, 'promoted', m));
    return { promoted: shadow.id, version: await this.versions.latest(s) };
  }

  async discard(s: PolicySubject, by: string) {
    const shadow = await this.required(s);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.store.end(shadow.id, 'discarded', m)))
        throw new NotFoundError(`shadow policy of the ${label(s)}`);
      await this.audit.configChange(
        {
          orgId: s.orgId,
          actor: by,
          entityType: entity(s),
          entityId: s.id,
          change: 'shadow_discarded',
          before: { shadow: shadow.config },
          after: { shadow: null },
        },
        m,
      );
    });
    return { discarded: shadow.id };
  }

  private async required(s: PolicySubject): Promise<Shadow> {
    if (s.type === 'agent') await this.agents.find(s.orgId, s.id);
    const shadow = await this.store.active(s);
    if (!shadow) throw new NotFoundError(`shadow policy of the ${label(s)}`);
    return shadow;
  }
}

const entity = (s: PolicySubject) => (s.type === 'agent' ? 'agent' : 'org_hooks');

function view(s: Shadow) {
  return {
    id: s.id,
    config: s.config,
    live_version: s.liveVersion,
    comment: s.comment,
    deployed_by: s.deployedBy,
    deployed_at: s.deployedAt,
  };
}
