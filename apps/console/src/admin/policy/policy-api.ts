import { data, http, type Schemas } from '../../api/typed';

/**
 * Whose policy a panel works on:
 * an agent's (`{ hooks?, confirmation?, require_confirmation_for_all? }`) or the org hooks.
 */
export type PolicySubject = { type: 'agent'; id: string } | { type: 'org_hooks' };

export type PolicyConfig = Record<string, unknown>;
export type Version = Schemas['PolicyVersionResponse'];
export type ShadowReport = Schemas['ShadowReportResponse'];
export type TestRun = Schemas['PolicyTestRunResponse'];
export type Replay = Schemas['ReplayResponse'];

const agent = (id: string) => ({ params: { path: { id } } });

/** The key of a subject's queries (invalidated together after a change). */
export const subjectKey = (s: PolicySubject) => ['policy', s.type === 'agent' ? s.id : 'org'];

export const policyApi = {
  versions: (s: PolicySubject) =>
    data(s.type === 'agent' ? http.GET('/api/agents/{id}/versions', agent(s.id)) : http.GET('/api/org/hooks/versions')),
  diff: (s: PolicySubject, from: number, to: number) => {
    const query = { from: String(from), to: String(to) };
    return data(
      s.type === 'agent'
        ? http.GET('/api/agents/{id}/versions/diff', { params: { path: { id: s.id }, query } })
        : http.GET('/api/org/hooks/versions/diff', { params: { query } }),
    );
  },
  rollback: async (s: PolicySubject, version: number, force: boolean) => {
    const body = { version, ...(force ? { force } : {}) };
    if (s.type === 'agent') await data(http.POST('/api/agents/{id}/rollback', { ...agent(s.id), body }));
    else await data(http.POST('/api/org/hooks/rollback', { body }));
  },
  shadow: (s: PolicySubject) =>
    data(s.type === 'agent' ? http.GET('/api/agents/{id}/shadow', agent(s.id)) : http.GET('/api/org/hooks/shadow')),
  deployShadow: (s: PolicySubject, config: PolicyConfig) =>
    data(
      s.type === 'agent'
        ? http.POST('/api/agents/{id}/shadow', { ...agent(s.id), body: { config } })
        : http.POST('/api/org/hooks/shadow', { body: { config } }),
    ),
  shadowReport: (s: PolicySubject) =>
    data(
      s.type === 'agent'
        ? http.GET('/api/agents/{id}/shadow-report', agent(s.id))
        : http.GET('/api/org/hooks/shadow-report'),
    ),
  promote: async (s: PolicySubject, force: boolean) => {
    const body = force ? { force } : {};
    if (s.type === 'agent') await data(http.POST('/api/agents/{id}/shadow/promote', { ...agent(s.id), body }));
    else await data(http.POST('/api/org/hooks/shadow/promote', { body }));
  },
  discard: async (s: PolicySubject) => {
    if (s.type === 'agent') await data(http.POST('/api/agents/{id}/shadow/discard', agent(s.id)));
    else await data(http.POST('/api/org/hooks/shadow/discard'));
  },
  tests: (s: PolicySubject) =>
    data(s.type === 'agent' ? http.GET('/api/agents/{id}/tests', agent(s.id)) : http.GET('/api/org/hooks/tests')),
  saveTests: (s: PolicySubject, cases: PolicyConfig[]) =>
    data(
      s.type === 'agent'
        ? http.PUT('/api/agents/{id}/tests', { ...agent(s.id), body: { cases } })
        : http.PUT('/api/org/hooks/tests', { body: { cases } }),
    ),
  runTests: (s: PolicySubject, body: { config?: PolicyConfig; cases?: PolicyConfig[] }) =>
    data(
      s.type === 'agent'
        ? http.POST('/api/agents/{id}/test', { ...agent(s.id), body })
        : http.POST('/api/org/hooks/test', { body }),
    ),
  replay: (s: PolicySubject, body: { config: PolicyConfig; from: string; to: string }) =>
    data(http.POST('/api/policies/replay', { body: { ...body, ...(s.type === 'agent' ? { agent: s.id } : {}) } })),
};
