/** Who is calling: the verified token, resolved to Warden's own org and user rows. */
export interface Principal {
  userId: string;
  sub: string;
  orgId: string;
  orgExternalId: string;
  roles: string[];
  email?: string;
  name?: string;
}

export const isAdmin = (p: Pick<Principal, 'roles'>) => p.roles.includes('admin');
