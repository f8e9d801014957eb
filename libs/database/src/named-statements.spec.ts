import { NAMED_STATEMENT_MIN_LENGTH, StatementNames, expandsColumns } from './named-statements.js';

const long = (sql: string) => sql.padEnd(NAMED_STATEMENT_MIN_LENGTH, ' ');

describe('StatementNames', () => {
  it('names a long statement, the same name each time; short ones go unnamed', () => {
    const names = new StatementNames();
    // Built twice, as a statement template is on each call: equal text, another string.
    const sql = () => long('UPDATE agent_runs SET event_seq = event_seq + $2::int WHERE id = $1 RETURNING event_seq');
    const name = names.nameOf(sql());
    expect(name).toMatch(/^w_[0-9a-f]{24}$/);
    expect(names.nameOf(sql())).toBe(name);
    expect(names.nameOf(long('SELECT id FROM agent_runs WHERE id = $1'))).not.toBe(name);
    expect(names.nameOf('SELECT id FROM agent_runs WHERE id = $1')).toBeUndefined();
  });

  it('never names a statement whose result a schema change can widen (a star over columns)', () => {
    const names = new StatementNames();
    expect(names.nameOf(long('SELECT * FROM confirmation_requests WHERE id = $1'))).toBeUndefined();
    expect(
      names.nameOf(long('UPDATE confirmation_requests c SET status = $2 WHERE id = $1 RETURNING c.*')),
    ).toBeUndefined();
    expect(
      names.nameOf(long('WITH o AS (UPDATE agent_runs SET n = 1 RETURNING n) SELECT (SELECT count(*) FROM o)')),
    ).toMatch(/^w_/);
  });

  it('stops naming new texts past its bound (a statement built with values inlined must not grow it forever)', () => {
    const names = new StatementNames();
    const named = Array.from({ length: 300 }, (_, i) => names.nameOf(long(`SELECT ${i} AS n, id FROM orgs`)));
    expect(named.filter(Boolean)).toHaveLength(256);
    // The ones named before the bound keep their names.
    expect(names.nameOf(long('SELECT 0 AS n, id FROM orgs'))).toBe(named[0]);
  });
});

describe('expandsColumns', () => {
  it.each([
    ['SELECT * FROM t', true],
    ['RETURNING *', true],
    ['SELECT settled.*, 1', true],
    ['SELECT count(*)::int FROM t', false],
    ['SELECT count( * ) FROM t', false],
    ['SELECT id FROM t', false],
    ['SELECT id /* a comment */ FROM t', false],
    ['SELECT id /* a comment */, t.* FROM t', true],
    ['SELECT id, * FROM t', true],
    ['SELECT DISTINCT * FROM t', true],
    ['SELECT json_agg(t.*) FROM t', true],
    ['SELECT row_to_json((t.*)) FROM t', true],
    ['SELECT floor(extract(epoch FROM t.at) * 1000)::bigint, n*2 FROM t', false],
    ['SELECT /* RETURNING * */ id FROM t', false],
  ])('%s -> %s', (sql, expected) => expect(expandsColumns(sql)).toBe(expected));
});
