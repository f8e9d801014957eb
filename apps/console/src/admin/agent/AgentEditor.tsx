import { Alert, Button, Grid, Group, List, Stack, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { data, http } from '../../api/typed';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { DryRunPanel } from '../DryRunPanel';
import { HooksEditor, normaliseHooks, type HooksValue } from '../HooksEditor';
import { ForceConfirm } from '../policy/ForceConfirm';
import { PolicyLifecyclePanels } from '../policy/PolicyLifecyclePanels';
import { isObject, NEW_CONFIG, problemsAt, unclaimed, withKey, type ConfigJson } from './agent-config';
import { EffectiveChain, useOrgClassHooks } from './EffectiveChain';
import { ModelFields } from './ModelFields';
import { PolicyFields } from './PolicyFields';
import { ToolsFields } from './ToolsFields';
import { useAgentProblems } from './useAgentProblems';

const POLICY_KEYS = ['hooks', 'confirmation', 'require_confirmation_for_all'];
/** The agent's policy as edited: what is versioned, shadowed, replayed and tested. */
const policyOf = (config: ConfigJson) =>
  Object.fromEntries(Object.entries(config).filter(([k, v]) => POLICY_KEYS.includes(k) && v !== undefined));

const hooksJson = (v: HooksValue) => {
  const out = { ...(v.class_hooks.length ? { class_hooks: v.class_hooks } : {}), ...(v.yaml ? { yaml: v.yaml } : {}) };
  return Object.keys(out).length ? out : undefined;
};

/**
 * Create or edit one agent with fields (model, tools, delegates, confirmation policy, hooks), each showing the
 * server's problems as typed; the Advanced tab holds the same config as JSON, in sync both ways. A dry run beside.
 */
export function AgentEditor() {
  const { agentId = 'new' } = useParams();
  const isNew = agentId === 'new';
  const navigate = useNavigate();
  const queries = useQueryClient();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => data(http.GET('/api/agents/{id}', { params: { path: { id: agentId } } })),
    enabled: !isNew,
  });
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [config, setConfig] = useState<ConfigJson>(NEW_CONFIG);
  const [tab, setTab] = useState<string | null>('fields');
  const [jsonText, setJsonText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [saveProblems, setSaveProblems] = useState<string[]>([]);
  const orgHooks = useOrgClassHooks();
  const live = useAgentProblems(jsonError ? null : config, isNew ? undefined : agentId);
  const problems = [...new Set([...live.problems, ...saveProblems])];

  // The fields take the stored agent while rendering (not in an effect after paint): nothing typed or ticked between
  // the agent's arrival and an effect is overwritten. A later change on the server (a save, a rollback) loads again.
  const [shown, setShown] = useState<typeof agent.data>(undefined);
  if (agent.data && agent.data !== shown) {
    setShown(agent.data);
    setName(agent.data.name);
    setInstructions(agent.data.instructions);
    setConfig(agent.data.model_config_json);
  }

  const edit = (next: ConfigJson) => {
    setSaveProblems([]);
    setConfig(next);
  };
  const hooks = normaliseHooks(config.hooks);
  const setHooks = (v: HooksValue) => edit(withKey(config, 'hooks', hooksJson(v)));
  const switchTab = (next: string | null) => {
    if (next === 'advanced') setJsonText(JSON.stringify(config, null, 2));
    setJsonError(null);
    setTab(next);
  };
  const editJson = (text: string) => {
    setJsonText(text);
    try {
      const parsed: unknown = JSON.parse(text);
      if (!isObject(parsed)) throw new Error('must be a JSON object');
      setJsonError(null);
      edit(parsed);
    } catch (err) {
      setJsonError(`Not valid JSON: ${(err as Error).message}`);
    }
  };

  const [testsRefused, setTestsRefused] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (force: boolean) => {
      const body = { name, instructions, model_config_json: config, ...(force ? { force } : {}) };
      return isNew
        ? data(http.POST('/api/agents', { body }))
        : data(http.PUT('/api/agents/{id}', { params: { path: { id: agentId } }, body }));
    },
    onSuccess: (a) => {
      setSaveProblems([]);
      setTestsRefused(null);
      notifications.show({ color: 'green', message: `Saved ${a.name}` });
      void queries.invalidateQueries({ queryKey: ['agents'] });
      void queries.invalidateQueries({ queryKey: ['agent', a.id] });
      void queries.invalidateQueries({ queryKey: ['effective-hooks', a.id] });
      if (isNew) void navigate(`/admin/agents/${a.id}`, { replace: true });
    },
    onError: (err) => {
      // 409: the policy's tests fail on this change; the admin may save anyway (recorded with the version).
      if (err instanceof ApiError && err.status === 409) setTestsRefused(err.message);
      else setSaveProblems(err instanceof ApiError && err.problems.length ? err.problems : [err.message]);
    },
  });
  const general = unclaimed(problems);

  return (
    <Stack>
      <Title order={1} size="h2">
        {isNew ? 'New agent' : `Agent ${agent.data?.name ?? ''}`}
      </Title>
      <ErrorAlert error={agent.error} what="The agent could not be loaded" />
      {!isNew && !shown && !agent.error && <Text c="dimmed">Loading the agent…</Text>}
      {(isNew || shown) && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack>
              <TextInput
                label="Name"
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                required
                error={name.trim() ? undefined : 'Required'}
              />
              <Textarea
                label="Instructions"
                autosize
                minRows={2}
                value={instructions}
                onChange={(e) => setInstructions(e.currentTarget.value)}
              />
              <Tabs value={tab} onChange={switchTab} keepMounted={false}>
                <Tabs.List>
                  <Tabs.Tab value="fields">Fields</Tabs.Tab>
                  <Tabs.Tab value="advanced">Advanced (JSON)</Tabs.Tab>
                </Tabs.List>
                <Tabs.Panel value="fields" pt="md">
                  <Stack gap="lg">
                    <ModelFields config={config} onChange={edit} problems={problems} />
                    <ToolsFields
                      config={config}
                      onChange={edit}
                      problems={problems}
                      agentId={isNew ? undefined : agentId}
                    />
                    <PolicyFields config={config} onChange={edit} problems={problems} />
                    <HooksEditor
                      value={hooks}
                      onChange={setHooks}
                      orgHooks={orgHooks}
                      problems={problemsAt(problems, /^hooks\./)}
                    />
                  </Stack>
                </Tabs.Panel>
                <Tabs.Panel value="advanced" pt="md">
                  <Textarea
                    label="Model settings, tools, policy and hooks (JSON)"
                    description="The same config as the fields: a change here shows there, and back."
                    autosize
                    minRows={10}
                    styles={{ input: { fontFamily: 'monospace' } }}
                    value={jsonText}
                    onChange={(e) => editJson(e.currentTarget.value)}
                    error={jsonError ?? (problems.length ? problems.join('\n') : undefined)}
                  />
                </Tabs.Panel>
              </Tabs>
              {general.length > 0 && (
                <Alert color="red" role="alert" title={saveProblems.length ? 'Not saved' : 'Save would refuse this'}>
                  <List size="sm">
                    {general.map((p) => (
                      <List.Item key={p}>{p}</List.Item>
                    ))}
                  </List>
                </Alert>
              )}
              {testsRefused && (
                <ForceConfirm
                  title="Not saved: the policy tests fail"
                  message={testsRefused}
                  action="Save anyway"
                  onForce={() => save.mutate(true)}
                  onCancel={() => setTestsRefused(null)}
                />
              )}
              <Group>
                <Button
                  onClick={() => save.mutate(false)}
                  disabled={!!jsonError || !name.trim()}
                  loading={save.isPending}
                >
                  Save agent
                </Button>
                {live.checking && (
                  <Text size="xs" c="dimmed">
                    Checking…
                  </Text>
                )}
                {!live.checking && problems.length > 0 && (
                  <Text size="sm" c="red.8" data-testid="problem-count">
                    {problems.length === 1 ? '1 problem' : `${problems.length} problems`} to fix (shown at the fields)
                  </Text>
                )}
              </Group>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack>
              <DryRunPanel modelConfig={config} hooks={hooks} />
              {!isNew && (
                <PolicyLifecyclePanels
                  subject={{ type: 'agent', id: agentId }}
                  candidate={policyOf(config)}
                  onChanged={() => void queries.invalidateQueries({ queryKey: ['agent', agentId] })}
                />
              )}
              {!isNew && <EffectiveChain agentId={agentId} name={agent.data?.name ?? ''} />}
            </Stack>
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
