import { actionDigest } from '@warden/hooks';
import { checkedArgs, WITHHELD_ARGS } from './args-integrity.js';

describe('checkedArgs', () => {
  const args = { id: 'PO-1', amount: 69_000 };
  const digest = actionDigest('oa__purchase_pay', args);

  it('gives the stored args when they hash to the digest, whatever their key order', () => {
    expect(checkedArgs('oa__purchase_pay', { amount: 69_000, id: 'PO-1' }, digest)).toEqual({ args, intact: true });
  });

  it('withholds args that no longer match, or that belong to another tool', () => {
    expect(checkedArgs('oa__purchase_pay', { id: 'PO-1', amount: 500 }, digest)).toEqual({
      args: WITHHELD_ARGS,
      intact: false,
    });
    expect(checkedArgs('oa__purchase_refund', args, digest).intact).toBe(false);
  });

  it('has nothing to check on rows from before digests', () => {
    expect(checkedArgs('oa__purchase_pay', args, null)).toEqual({ args, intact: true });
  });
});
