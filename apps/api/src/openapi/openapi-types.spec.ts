import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppModule } from '../app.module.js';
import { openApiDocument } from '../bootstrap.js';
import { CONSOLE_SCHEMA, consoleApiTypes } from './openapi-types.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

describe('the OpenAPI document and the console client generated from it', () => {
  it('the committed console types are generated from the current routes and DTOs (else: npm run openapi)', async () => {
    expect(await consoleApiTypes()).toBe(readFileSync(path.join(ROOT, CONSOLE_SCHEMA), 'utf8'));
  }, 30_000);

  it('every JSON route documents its response schema (event streams, 204s and chat-app callbacks aside)', async () => {
    const app = await NestFactory.create(AppModule.forRoot({}), { preview: true, logger: false, abortOnError: false });
    app.setGlobalPrefix('api', { exclude: ['demo-oa/{*path}'] });
    const doc = openApiDocument(app);
    await app.close();
    const undocumented: string[] = [];
    let documented = 0;
    for (const [route, item] of Object.entries(doc.paths)) {
      if (/\/callback$|^\/demo-oa|^\/api\/health$/.test(route)) continue;
      for (const [method, op] of Object.entries(
        item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>,
      )) {
        const ok = Object.entries(op.responses ?? {}).filter(([code]) => code.startsWith('2'));
        if (ok.some(([code]) => code === '204')) continue;
        const content = ok.flatMap(([, r]) => Object.entries(r.content ?? {}));
        if (content.some(([type]) => type === 'text/event-stream')) continue;
        if (content.some(([, c]) => c.schema)) documented++;
        else undocumented.push(`${method.toUpperCase()} ${route}`);
      }
    }
    expect(undocumented).toEqual([]);
    expect(documented).toBeGreaterThan(30);
  }, 30_000);
});
