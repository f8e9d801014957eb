import { QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isDroppedDatabaseConnection, isTransientDatabaseError } from './transient-error.js';

describe('isTransientDatabaseError', () => {
  it('is true for a dropped connection, a terminated backend and a transaction whose connection died under it', () => {
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    // TypeORM's own error, with its own wording (the run engine used to fail runs on it).
    expect(isTransientDatabaseError(new QueryRunnerAlreadyReleasedError())).toBe(true);
  });

  it('is false for a statement that is wrong', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    expect(isTransientDatabaseError(new QueryFailedError('INSERT', [], driverError))).toBe(false);
    expect(isTransientDatabaseError('Connection terminated')).toBe(false);
  });
});

describe('isDroppedDatabaseConnection', () => {
  it("is true for the driver's and the server's words for a lost connection", () => {
    expect(isDroppedDatabaseConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDroppedDatabaseConnection(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDroppedDatabaseConnection(new QueryRunnerAlreadyReleasedError())).toBe(true);
  });

  it("is false for a hook's own network failure (a service it calls is down): that fails closed as before", () => {
    expect(isDroppedDatabaseConnection(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isDroppedDatabaseConnection(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(false);
  });
});
