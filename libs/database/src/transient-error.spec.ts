import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isTransientDatabaseError } from './transient-error.js';

describe('isTransientDatabaseError', () => {
  it("a transaction whose connection died under it is transient, in both of TypeORM's wordings", () => {
    expect(isTransientDatabaseError(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isTransientDatabaseError(new Error('Query runner already released. Cannot run queries anymore.'))).toBe(true);
    expect(isTransientDatabaseError(new Error('query runner was already released'))).toBe(true);
  });
  it('dropped connections and restarts are transient; a wrong statement is not', () => {
    expect(
      isTransientDatabaseError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    ).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isTransientDatabaseError('not an error')).toBe(false);
  });
});
