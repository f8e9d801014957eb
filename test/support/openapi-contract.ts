import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Ajv, type ValidateFunction } from 'ajv';
import { openApiDocument } from '../../apps/api/src/bootstrap.js';

type Schema = Record<string, unknown>;

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/**
 * Checks response bodies against the app's own OpenAPI document (the one `npm run openapi` turns into the console's
 * types), so a handler that returns a field its DTO does not declare, or leaves out a declared one, fails a test.
 * Object schemas that list properties are closed (`additionalProperties: false`) unless they say otherwise: that is
 * what catches undeclared fields.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  private readonly routes: Array<{ pattern: RegExp; template: string; item: Record<string, Operation> }>;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenAPIObject) {
    const components = closeObjects(doc.components?.schemas ?? {}) as Schema;
    this.ajv.addSchema({ $id: 'openapi', components: { schemas: components } });
    this.routes = Object.entries(doc.paths).map(([template, item]) => ({
      template,
      // Literal segments before parameters, so /runs/{id} does not swallow /runs/stream-like siblings.
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      item: item as Record<string, Operation>,
    }));
    this.routes.sort((a, b) => paramCount(a.template) - paramCount(b.template));
  }

  static fromApp(app: INestApplication): OpenApiContract {
    return new OpenApiContract(openApiDocument(app));
  }

  /** What is wrong with this response according to the document; [] when it conforms or is not JSON. */
  violations(method: string, url: string, status: number, contentType: string | null, body: unknown): string[] {
    if (!contentType?.includes('application/json')) return [];
    const path = url.split('?')[0];
    const route = this.routes.find((r) => r.pattern.test(path) && r.item[method.toLowerCase()]);
    const where = `${method.toUpperCase()} ${path} → ${status}`;
    // Routes left out of the document on purpose (chat-app callbacks) have no contract to check.
    if (!route) return [];
    const responses = route.item[method.toLowerCase()].responses ?? {};
    const documented = responses[String(status)] ?? responses.default;
    if (!documented) return status < 300 ? [`${where}: status not documented`] : [];
    const schema = documented.content?.['application/json']?.schema;
    // No schema to hold it to: /api/health is documented by @nestjs/terminus only outside jest's ESM loader, and
    // openapi-types.spec.ts already requires one of every other JSON route.
    if (!schema) return [];
    const key = `${method.toLowerCase()} ${route.template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(closeObjects(schema) as Schema));
      this.compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message} ${fmt(e.params)}`);
  }
}

function paramCount(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

function fmt(params: Record<string, unknown>): string {
  return JSON.stringify(params);
}

/** Local refs point into the document registered as `openapi`. */
function rebase(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as Schema;
}

/**
 * OpenAPI 3.0 → what Ajv checks: `nullable` becomes "null or the schema" (so a nullable `allOf: [$ref]` accepts
 * null), and an object schema with properties and no `additionalProperties` is closed.
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'properties' ? mapValues(v as Schema) : closeObjects(v);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

function mapValues(properties: Schema): Schema {
  return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, closeObjects(v)]));
}
