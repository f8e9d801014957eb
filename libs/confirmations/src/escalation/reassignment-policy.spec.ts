import type { MemberView } from '@warden/auth';
import { BadInputError, ConflictError } from '@warden/common';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';
import { checkReassignment } from './reassignment-policy.js';

const member = (sub: string, roles: string[] = []): MemberView => ({
  userId: `u-${sub}`,
  sub,
  email: null,
  name: null,
  roles,
  identities: {},
});
const admin = (sub: string) => member(sub, ['admin']);
const row = (over: Partial<ConfirmationRequest> = {}): ConfirmationRequest =>
  ({
    id: 'c-1',
    status: ConfirmationStatus.Pending,
    approvers: ['org_admins'],
    approverScope: 'initiator',
    approvalsRequired: 2,
    approvalsGiven: 1,
    requestedBy: 'u-req',
    forbidSelfApproval: true,
    ...over,
  }) as Partial<ConfirmationRequest> as ConfirmationRequest;
const check = (r: ConfirmationRequest, by: MemberView, to: MemberView, voterIds: string[] = []) =>
  checkReassignment({ row: r, by, to, voterIds, channelList: {} });

describe('checkReassignment', () => {
  it('hands the last missing approval from an admin who has not voted to another admin, guarded on what it saw', () => {
    expect(check(row(), admin('bea'), admin('carl'), ['u-alice'])).toEqual({
      approvers: ['org_admins'],
      approvalsGiven: 1,
      byUserId: 'u-bea',
      toUserId: 'u-carl',
    });
  });

  it('refuses a target the policy does not allow (400), the requester under forbid_self_approval included', () => {
    expect(() => check(row(), admin('bea'), member('mo'))).toThrow(BadInputError);
    expect(() => check(row(), admin('bea'), { ...admin('req'), userId: 'u-req' })).toThrow(
      /self-approval is forbidden/,
    );
  });

  it('refuses what would lower the number of distinct approvers (409)', () => {
    expect(() => check(row(), admin('alice'), admin('bea'), ['u-alice'])).toThrow(ConflictError);
    expect(() => check(row(), admin('bea'), admin('alice'), ['u-alice'])).toThrow(/alice has already voted/);
    expect(() => check(row({ approvalsGiven: 0 }), admin('bea'), admin('carl'))).toThrow(/needs 2 more approvals/);
    expect(() =>
      check(row({ approvalsRequired: 3, approvalsGiven: 1 }), admin('bea'), admin('carl'), ['u-alice']),
    ).toThrow(ConflictError);
  });

  it('a one-approval request may go to anyone the policy allows, named users included', () => {
    const single = row({ approvers: ['users:dana,eve'], approvalsRequired: 1, approvalsGiven: 0 });
    expect(check(single, member('dana'), member('eve')).toUserId).toBe('u-eve');
    expect(() => check(single, member('dana'), admin('frank'))).toThrow(/frank may not approve this request/);
  });
});
