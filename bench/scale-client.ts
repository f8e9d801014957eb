import pg from 'pg';
import type { ServerProcess } from '../test/support/server-process.js';
import { parseSse } from '../test/e2e/runtime-helpers.js';

/** A parked run's approval request and the purchase order its call pays. */
export interface Parked {
  id: string;
  po: string;
}

const CONCURRENCY = Number(process.env.SCALE_CONCURRENCY ?? 40);

/** Runs `task` over `items`, `CONCURRENCY` at a time. */
async function pooled<T, R>(items: T[], task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

/** The bench's HTTP client: an admin of org `acme`, each request to the next instance in turn. */
export class ScaleClient {
  private turn = 0;

  constructor(
    private readonly servers: ServerProcess[],
    private readonly token: string,
  ) {}

  private next(): ServerProcess {
    return this.servers[this.turn++ % this.servers.length];
  }

  private async call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.next().url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** A connector `oa` on the fake and an agent paying purchase orders (over 50 000 needs an approval). */
  async setUp(oaUrl: string, llmBaseUrl: string, actions: unknown[]): Promise<string> {
    const connector = await this.call('POST', '/api/connectors', { name: 'oa', base_url: oaUrl, actions });
    if (connector.status !== 201) throw new Error(`connector: ${connector.status} ${await connector.text()}`);
    const agent = await this.call('POST', '/api/agents', {
      name: 'payer',
      instructions: 'You pay purchase orders.',
      model_config_json: {
        model: {
          provider: 'openai',
          base_url: llmBaseUrl,
          model: 'fake-1',
          api_key_env: 'WARDEN_LLM_KEY_FAKE',
          stream: false,
        },
        tools: ['oa__purchase_pay'],
        confirmation: { timeout_s: 3600 },
      },
    });
    if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${await agent.text()}`);
    return ((await agent.json()) as { id: string }).id;
  }

  /** Starts `count` chats paying 60 000 each; each stream is read until its approval request, then closed. */
  parkRuns(agentId: string, count: number): Promise<Parked[]> {
    const pos = Array.from({ length: count }, (_, i) => `PO-S${i}`);
    return pooled(pos, async (po) => {
      const abort = new AbortController();
      const res = await fetch(`${this.next().url}/api/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, message: `Pay ${po} amount 60000` }),
        signal: abort.signal,
      });
      if (!res.body) throw new Error(`the chat of ${po} answered ${res.status} without a body`);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream of ${po} ended before its approval request:\n${text}`);
          text += decoder.decode(value, { stream: true });
          const pending = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)).events.find(
            (e) => e.event === 'confirmation_pending',
          );
          if (pending) return { id: String((pending.data as { confirmation_id: unknown }).confirmation_id), po };
        }
      } finally {
        abort.abort();
      }
    });
  }

  /** Approves each request through the next instance; returns when each decision was sent (performance.now()). */
  async approveAll(requests: Parked[]): Promise<Map<string, number>> {
    const sentAt = new Map<string, number>();
    await pooled(requests, async ({ id }) => {
      sentAt.set(id, performance.now());
      const res = await this.call('POST', `/api/confirmations/${id}/decision`, { decision: 'approve' });
      if (res.status !== 200) throw new Error(`decision ${id}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    return sentAt;
  }
}

interface CounterReport {
  ticks: number;
  statements: number;
  recent?: string[];
}

function lastReport(server: ServerProcess): CounterReport {
  const lines = server.output().match(/\[statement-counter\] .*/g) ?? [];
  return lines.length
    ? (JSON.parse(lines[lines.length - 1].slice('[statement-counter] '.length)) as CounterReport)
    : { ticks: 0, statements: 0 };
}

/** Statements per second summed over the instances, over `seconds` of each instance's own ticks. */
export async function statementsOf(servers: ServerProcess[], seconds: number): Promise<number> {
  const start = servers.map(lastReport);
  const ends = servers.map(() => undefined as CounterReport | undefined);
  while (ends.some((e) => !e)) {
    servers.forEach((s, i) => {
      const r = lastReport(s);
      if (!ends[i] && r.ticks >= start[i].ticks + seconds) ends[i] = r;
    });
    await new Promise((r) => setTimeout(r, 200));
  }
  return (ends as CounterReport[]).reduce(
    (sum, end, i) => sum + (end.statements - start[i].statements) / (end.ticks - start[i].ticks),
    0,
  );
}

/** Returns once `count` runs are parked in the database (the client sees a run's request before its park write). */
export async function untilAllParked(url: string, count: number): Promise<void> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    for (;;) {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM agent_runs WHERE parked_on IS NOT NULL`,
      );
      if (rows[0].n >= count) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await sql.end();
  }
}

/** The statements each instance sent last, counted by their first words (what an idle instance still does). */
export function recentStatements(servers: ServerProcess[]): string {
  const counts = new Map<string, number>();
  for (const text of servers.flatMap((s) => lastReport(s).recent ?? [])) {
    const key = text.slice(0, 100);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([text, n]) => `    ${n} x ${text}`).join('\n');
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
