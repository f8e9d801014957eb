import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { BadInputError } from '../errors/domain.exception.js';

/** Deeper JSON serves no Warden input and overflows recursive code (class-transformer, validators). */
export const MAX_INPUT_DEPTH = 64;

/**
 * Refuses, before any pipe or handler sees it, input that PostgreSQL or recursive code cannot take: NUL characters
 * or unpaired surrogates in strings or keys (text and jsonb refuse them, which used to surface as a 500 halfway through
 * a write) and JSON nested deeper than MAX_INPUT_DEPTH. The 400 names the field. Iterative, so the check itself cannot
 * overflow.
 */
@Injectable()
export class InputLimitsInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() === 'http') {
      const req = ctx.switchToHttp().getRequest<{ body?: unknown; query?: unknown; params?: unknown }>();
      const problem =
        inputProblem('params', req.params) ?? inputProblem('query', req.query) ?? inputProblem('body', req.body);
      if (problem) throw new BadInputError(problem);
    }
    return next.handle();
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first NUL-byte, invalid-Unicode or depth problem in `value`, named by its path, or null. */
export function inputProblem(root: string, value: unknown): string | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: root, depth: 0 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { v, path, depth } = top;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return `${path} contains a NUL character (\\u0000), which is not allowed`;
      if (LONE_SURROGATE.test(v)) return `${path} contains an unpaired UTF-16 surrogate (not valid Unicode)`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return `${path} is nested deeper than ${MAX_INPUT_DEPTH} levels`;
    for (const [k, child] of Object.entries(v)) {
      const childPath = Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`;
      if (k.includes('\u0000') || LONE_SURROGATE.test(k))
        return `${path} has a key containing a NUL character or an unpaired surrogate, which is not allowed`;
      stack.push({ v: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}
