import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isAdmin, type Principal } from '@warden/auth';
import { ConflictError, isUuid, NotFoundError, type RunEventTokenUsage, type RunEventType } from '@warden/common';
import type { Response } from 'express';
import { Repository } from 'typeorm';
import { RunExecutor } from '../engine/run-executor.js';
import { RunEventsService } from './run-events.service.js';
import { ACTIVE_RUN_STATUSES, AgentRun } from './run.entity.js';
import { openEventStream } from '@warden/common';

/** The event types that make up a run's trace (what the hooks and tools did). */
const TRACE_TYPES: RunEventType[] = [
  'tool_call',
  'hook',
  'confirmation_pending',
  'confirmation_resolved',
  'observation',
  'plan',
  'plan_rejected',
  'error',
  'answer',
];

@Injectable()
export class RunsService {
  constructor(
    @InjectRepository(AgentRun) private readonly runs: Repository<AgentRun>,
    private readonly events: RunEventsService,
    private readonly executor: RunExecutor,
  ) {}

  /** A run of the caller's org (another org's run is "not found"). */
  async find(orgId: string, id: string): Promise<AgentRun> {
    const run = isUuid(id) ? await this.runs.findOneBy({ id, orgId }) : null;
    if (!run) throw new NotFoundError('run', id);
    return run;
  }

  /**
   * A run the caller may read: an admin reads every run of the org, a member only the runs they started (with
   * their messages, answers and traces). Another member's run is "not found", so ids reveal nothing.
   */
  async findVisible(p: Principal, id: string): Promise<AgentRun> {
    const run = await this.find(p.orgId, id);
    if (!isAdmin(p) && run.userId !== p.userId) throw new NotFoundError('run', id);
    return run;
  }

  async view(p: Principal, id: string) {
    const run = await this.findVisible(p, id);
    const trace = (await this.events.list(run.id, 0, TRACE_TYPES)).map((e) => ({
      seq: e.seq,
      type: e.type,
      ...e.data,
      at: e.created_at,
    }));
    return {
      id: run.id,
      status: run.status,
      surface: run.surface,
      mode: run.mode,
      hooks: run.hooks,
      agent_id: run.agentId,
      user_id: run.userId,
      conversation_id: run.conversationId,
      parent_run_id: run.parentRunId,
      parent_call_id: run.parentCallId,
      message: run.message,
      answer: run.answer,
      error: run.error,
      created_at: run.createdAt,
      finished_at: run.finishedAt,
      policy_versions: run.state.policy_versions ?? null,
      trace_id: run.traceId,
      usage: totalUsage(trace),
      trace,
    };
  }

  async cancel(p: Principal, id: string) {
    const run = await this.findVisible(p, id);
    if (!ACTIVE_RUN_STATUSES.includes(run.status) || !(await this.executor.cancel(run.id))) {
      const now = await this.find(p.orgId, id);
      throw new ConflictError(`the run already ended with status ${now.status}`, { status: now.status });
    }
    return this.view(p, id);
  }

  /**
   * Streams the run's events after `afterSeq` and then live ones until `done`; a client disconnect only stops the
   * stream.
   */
  async stream(runId: string, afterSeq: number, res: Response): Promise<void> {
    const stream = openEventStream(res);
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    try {
      await this.events.follow(runId, afterSeq, stream.send, stop.signal);
    } finally {
      stream.close();
    }
  }
}

/** The run's tokens: the sum of what its model calls reported (on their events); null when none reported any. */
function totalUsage(trace: object[]): (RunEventTokenUsage & { reported_calls: number }) | null {
  const reported = trace.flatMap((e) => ('usage' in e && e.usage ? [e.usage as RunEventTokenUsage] : []));
  if (reported.length === 0) return null;
  const sum = (key: keyof RunEventTokenUsage) => reported.reduce((n, u) => n + u[key], 0);
  return {
    prompt_tokens: sum('prompt_tokens'),
    completion_tokens: sum('completion_tokens'),
    total_tokens: sum('total_tokens'),
    reported_calls: reported.length,
  };
}
