import { Group, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import { asError, problemsAt, section, withKey, type ConfigJson } from './agent-config';

const at = (key: string) => new RegExp(`^model_config_json\\.model(\\.${key}\\b|: name either)`);

/**
 * Provider, model name, base URL and where the API key comes from (a stored credential or an allowed server variable).
 */
export function ModelFields({
  config,
  onChange,
  problems,
}: {
  config: ConfigJson;
  onChange: (c: ConfigJson) => void;
  problems: string[];
}) {
  const credentials = useQuery({
    queryKey: ['llm-credentials'],
    queryFn: () => data(http.GET('/api/llm-credentials')),
  });
  const model = section(config, 'model');
  const set = (key: string, value: unknown) => onChange({ ...config, model: withKey(model, key, value) });
  const str = (key: string) => (typeof model[key] === 'string' ? model[key] : '');
  const keySource = model.api_key_env !== undefined ? 'env' : 'credential';
  const switchSource = (to: string) => {
    const { api_key_env: _env, api_key_credential_id: _id, ...rest } = model;
    onChange({ ...config, model: to === 'env' ? { ...rest, api_key_env: 'WARDEN_LLM_KEY_' } : rest });
  };
  const scripted = model.provider === 'scripted';
  return (
    <Stack gap="xs">
      <Title order={4}>Model</Title>
      <Group grow align="flex-start">
        <Select
          label="Provider"
          data={[
            { value: 'openai', label: 'OpenAI-compatible API' },
            { value: 'scripted', label: 'Scripted (tests, demos)' },
          ]}
          value={typeof model.provider === 'string' ? model.provider : null}
          allowDeselect={false}
          onChange={(v) => set('provider', v ?? 'openai')}
          error={asError(problemsAt(problems, at('provider')))}
        />
        <TextInput
          label="Model name"
          value={str('model')}
          onChange={(e) => set('model', e.currentTarget.value)}
          error={asError(problemsAt(problems, at('model')))}
        />
      </Group>
      {scripted ? (
        <Text size="sm" c="dimmed">
          A scripted model replays the turns of its script: edit them in the Advanced tab.
        </Text>
      ) : (
        <>
          <TextInput
            label="Base URL"
            description="The API's address, e.g. https://api.openai.com/v1"
            value={str('base_url')}
            onChange={(e) => set('base_url', e.currentTarget.value)}
            error={asError(problemsAt(problems, at('base_url')))}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="key-source-label">
              API key
            </Text>
            <SegmentedControl
              aria-labelledby="key-source-label"
              value={keySource}
              onChange={switchSource}
              data={[
                { value: 'credential', label: 'Stored credential' },
                { value: 'env', label: 'Server variable' },
              ]}
            />
          </Stack>
          {keySource === 'credential' ? (
            <Select
              label="LLM credential"
              description="Stored under Admin › LLM credentials; its key is only sent to its origin"
              placeholder={credentials.data?.length ? 'Pick a credential' : 'No credentials stored yet'}
              data={(credentials.data ?? []).map((c) => ({
                value: c.id,
                label: `${c.name} (${c.origin ?? 'no origin'})`,
              }))}
              value={str('api_key_credential_id') || null}
              onChange={(v) => set('api_key_credential_id', v ?? undefined)}
              clearable
              error={asError(problemsAt(problems, at('api_key_credential_id')))}
            />
          ) : (
            <TextInput
              label="Key variable"
              description="A server environment variable allowed by LLM_KEY_ENV_ALLOW (default WARDEN_LLM_KEY_*)"
              value={str('api_key_env')}
              onChange={(e) => onChange({ ...config, model: { ...model, api_key_env: e.currentTarget.value } })}
              error={asError(problemsAt(problems, at('api_key_env')))}
            />
          )}
        </>
      )}
    </Stack>
  );
}
