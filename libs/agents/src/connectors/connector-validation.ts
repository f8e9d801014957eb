import { BadInputError } from '@warden/common';
import { checkConfirmationCondition } from './confirmation-condition.js';
import { HTTP_METHODS, type ConnectorAction, type HttpMethod } from './connector.entity.js';
import type { ConnectorActionDto, ConnectorDto } from './dto/connector.dto.js';
import { toolNameOf } from './tool-name.js';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PATH_PARAM = /\{([^{}]*)\}/g;

/** Every problem at once, each naming the field or action; nothing is saved when there is one. */
export function validateConnector(dto: ConnectorDto): Array<Omit<ConnectorAction, 'id' | 'connectorId'>> {
  const problems: string[] = [];
  if (!NAME.test(dto.name))
    problems.push(`name "${dto.name}" must start with a letter and contain only letters, digits, "_" or "-" (max 64)`);
  let url: URL | undefined;
  try {
    url = new URL(dto.base_url);
  } catch {
    /* reported below */
  }
  if (!url || !['http:', 'https:'].includes(url.protocol))
    problems.push(`base_url "${dto.base_url}" must be an absolute http(s) URL`);
  for (const [key, value] of Object.entries(dto.headers ?? {})) {
    if (!HEADER_NAME.test(key)) problems.push(`headers: "${key}" is not a valid header name`);
    if (typeof value !== 'string') problems.push(`headers: the value of "${key}" must be a string`);
  }
  if (dto.actions.length === 0) problems.push('actions: give at least one action');
  const seen = new Set<string>();
  const actions = dto.actions.map((a: ConnectorActionDto, position) => {
    const where = `action "${a.name}"`;
    if (!NAME.test(a.name))
      problems.push(`${where}: name must start with a letter and contain only letters, digits, "_" or "-" (max 64)`);
    const tool = toolNameOf(dto.name, a.name);
    if (seen.has(tool)) problems.push(`${where}: duplicate action (tool ${tool})`);
    seen.add(tool);
    const method = a.method.toUpperCase() as HttpMethod;
    if (!HTTP_METHODS.includes(method))
      problems.push(`${where}: method "${a.method}" must be one of ${HTTP_METHODS.join(', ')}`);
    const parameters = a.parameters ?? { type: 'object', properties: {} };
    problems.push(...schemaProblems(where, parameters));
    if (!a.path.startsWith('/') || /\s/.test(a.path))
      problems.push(`${where}: path "${a.path}" must start with "/" and contain no spaces`);
    const declared = (parameters.properties ?? {}) as Record<string, unknown>;
    for (const [, param] of a.path.matchAll(PATH_PARAM)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(param))
        problems.push(`${where}: path parameter "{${param}}" is not a valid name`);
      else if (a.parameters && !(param in declared))
        problems.push(`${where}: path parameter "${param}" is not declared in parameters.properties`);
    }
    if (a.requires_confirmation_when !== undefined) {
      const problem =
        a.requires_confirmation_when.trim() === ''
          ? 'must not be empty'
          : checkConfirmationCondition(a.requires_confirmation_when);
      if (problem)
        problems.push(
          `${where}: requires_confirmation_when "${a.requires_confirmation_when}" ` +
            `is not a valid CEL condition: ${problem}`,
        );
    }
    return {
      position,
      name: a.name,
      method,
      path: a.path,
      description: a.description ?? '',
      parameters,
      requiresConfirmation: a.requires_confirmation ?? false,
      requiresConfirmationWhen: a.requires_confirmation_when ?? null,
      write: a.write ?? method !== 'GET',
    };
  });
  if (problems.length > 0) throw new BadInputError(`invalid connector: ${problems.join('; ')}`, problems);
  return actions;
}

/** A tool's parameters must be a JSON-schema object the LLM APIs accept. */
function schemaProblems(where: string, schema: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push(`${where}: parameters.type must be "object"`);
  const props = schema.properties;
  if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props))) {
    problems.push(`${where}: parameters.properties must be an object`);
  } else {
    for (const [key, prop] of Object.entries((props ?? {}) as Record<string, unknown>)) {
      if (typeof prop !== 'object' || prop === null || Array.isArray(prop))
        problems.push(`${where}: parameters.properties.${key} must be a schema object`);
    }
  }
  const required = schema.required;
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
      problems.push(`${where}: parameters.required must be an array of property names`);
    else
      for (const r of required as string[]) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `in` needs an object (TS2638)
        if (props && !(r in (props as object)))
          problems.push(`${where}: parameters.required names "${r}", which is not in properties`);
      }
  }
  return problems;
}
