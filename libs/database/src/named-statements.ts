import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Long statements sent as named (prepared) statements, so PostgreSQL parses and plans each once per connection
 * instead of on every call. A run's writes are single statements of 1-3 KB (`ownerWriteSql`); on a 2-core machine
 * PostgreSQL spent about as long parsing and planning them as executing them.
 *
 * Which statements: at least `MIN_LENGTH` characters (short ones plan in microseconds) and no `*` that expands to a
 * table's columns. A prepared `SELECT *` or `RETURNING *` fails with "cached plan must not change result type" once a
 * migration adds a column, which a rolling deploy does while older instances still run; `count(*)` is fine.
 * At most `MAX_NAMES` distinct texts per process are named (statements built from templates come in a few shapes);
 * later ones go unnamed, as before.
 */
export const NAMED_STATEMENT_MIN_LENGTH = 200;
const MAX_NAMES = 256;

/** The statement name for `text`, or undefined when it goes unnamed. */
export class StatementNames {
  private readonly names = new Map<string, string | null>();

  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined) return known ?? undefined;
    if (text.length < NAMED_STATEMENT_MIN_LENGTH) return undefined;
    if (this.names.size >= MAX_NAMES) return undefined;
    const name = expandsColumns(text) ? null : `w_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, name);
    return name ?? undefined;
  }
}

/**
 * True when `text` expands a `*` into columns (`SELECT *`, `RETURNING *`, `t.*`, `, *`) outside comments and
 * `count(*)`: a column list that a schema change can widen. A `*` after an operand (`x * 1000`) multiplies.
 */
export function expandsColumns(text: string): boolean {
  return /(?:\bselect|\breturning|\bdistinct|\ball|,|\.|\()\s*\*/i.test(
    text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\bcount\s*\(\s*\*\s*\)/gi, 'count()'),
  );
}

const processNames = new StatementNames();

/**
 * The pool's client class: `pg.Client`, naming the statements `StatementNames` picks. TypeORM hands `extra.Client`
 * to `pg.Pool`; everything else about the connection is pg's own.
 */
export class NamingClient extends pg.Client {
  // pg's query() has many overloads; only (text, values) calls, TypeORM's, are named.
  query(...args: unknown[]): never {
    const [config, values] = args;
    const name = typeof config === 'string' && Array.isArray(values) ? processNames.nameOf(config) : undefined;
    const call = name ? [{ name, text: config, values }, ...args.slice(2)] : args;
    return (super.query as (...a: unknown[]) => never)(...call);
  }
}
