import { QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isTransientDatabaseError } from './transient-error.js';

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
