import { compactLogLine, shownOnTerminal } from './compact-log-line.js';

const at = new Date(2026, 11, 2, 9, 5, 7).getTime();

describe('compactLogLine (the terminal format of the logs)', () => {
  it('shows time, level, context and message on one line', () => {
    expect(
      compactLogLine({
        level: 30,
        time: at,
        pid: 1,
        hostname: 'vm',
        context: 'NestApplication',
        msg: 'Nest application successfully started',
      }),
    ).toBe('09:05:07 INFO  NestApplication Nest application successfully started');
  });

  it('shows a finished request as METHOD /path status ms, without headers or ids', () => {
    const line = compactLogLine({
      level: 30,
      time: at,
      req: { id: 'f3b2', method: 'GET', url: '/api/me', headers: { host: 'x', authorization: '[Redacted]' } } as never,
      res: { statusCode: 401, headers: { 'content-security-policy': "default-src 'self'" } } as never,
      responseTime: 3.4,
      msg: 'request completed',
    });
    expect(line).toBe('09:05:07 INFO  GET /api/me 401 3ms');
  });

  it('keeps a log made during a request to its own message (the request is summarised once, when it ends)', () => {
    expect(
      compactLogLine({
        level: 40,
        time: at,
        context: 'Runs',
        msg: 'lease lost',
        req: { method: 'POST', url: '/api/chat' },
      }),
    ).toBe('09:05:07 WARN  Runs lease lost');
  });

  it('adds other fields as compact JSON on the same line, and an error stack indented below', () => {
    expect(compactLogLine({ level: 30, time: at, context: 'Database', msg: 'applied', count: 2 })).toBe(
      '09:05:07 INFO  Database applied {"count":2}',
    );
    const err = { message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:1)' };
    expect(compactLogLine({ level: 50, time: at, context: 'Filter', msg: 'failed', err }).split('\n')).toEqual([
      '09:05:07 ERROR Filter failed',
      '    Error: boom',
      '        at f (x.ts:1:1)',
    ]);
  });

  it('colours the level only when asked to', () => {
    expect(compactLogLine({ level: 40, time: at, msg: 'x' }, { colors: true })).toContain('\x1b[33mWARN \x1b[0m');
    expect(compactLogLine({ level: 40, time: at, msg: 'x' })).not.toContain('\x1b[');
  });

  it("leaves Nest's wiring report (a line per module and route) off the terminal unless debugging", () => {
    const mapped = { level: 30, context: 'RouterExplorer', msg: 'Mapped {/api/me, GET} route' };
    expect(shownOnTerminal(mapped, 'info')).toBe(false);
    expect(shownOnTerminal(mapped, 'debug')).toBe(true);
    expect(
      shownOnTerminal({ level: 30, context: 'NestApplication', msg: 'Nest application successfully started' }, 'info'),
    ).toBe(true);
    expect(shownOnTerminal({ level: 50, context: 'InstanceLoader', msg: 'failed' }, 'info')).toBe(true);
  });
});
