import { QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isDroppedDatabaseConnection, isTransientDatabaseError } from './transient-error.js';

describe('isTransientDatabaseError', () => {
  it("a transaction whose connection died under it is transient, in both of TypeORM's wordings", () => {
    expect(isTransientDatabaseError(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isTransientDatabaseError(new Error('Query runner already released. Cannot run queries anymore.'))).toBe(
      true,
    );
    expect(isTransientDatabaseError(new Error('query runner was already released'))).toBe(true);
  });
  it('dropped connections and restarts are transient; a wrong statement is not', () => {
    expect(
      isTransientDatabaseError(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isTransientDatabaseError('not an error')).toBe(false);
  });
});

describe('isDroppedDatabaseConnection', () => {
  const socketError = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
  it('a query whose connection was reset under it (a backend terminated mid-read) is a dropped connection', () => {
    // Seen in the fault loop (seed 68487): the gate blocked a call on "read ECONNRESET" from its own query.
    expect(isDroppedDatabaseConnection(new QueryFailedError('SELECT 1', [], socketError()))).toBe(true);
  });
  it("the same socket error out of a hook's own HTTP call is not ours to retry", () => {
    expect(isDroppedDatabaseConnection(socketError())).toBe(false);
    expect(
      isDroppedDatabaseConnection(
        new QueryFailedError('SELECT 1', [], Object.assign(new Error('dup'), { code: '23505' })),
      ),
    ).toBe(false);
  });
});
