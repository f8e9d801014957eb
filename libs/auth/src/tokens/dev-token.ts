import { SignJWT } from 'jose';

export interface DevTokenClaims {
  sub: string;
  org: string;
  roles?: string[];
  email?: string;
  name?: string;
  expiresIn?: string;
  orgClaim?: string;
  rolesClaim?: string;
  /** More claims (e.g. an identity claim such as `feishu_open_id`). */
  extra?: Record<string, unknown>;
}

/** Mints an HS256 token for AUTH_MODE=dev (used by `npm run token`, the demo seed and tests). */
export async function mintDevToken(secret: string, c: DevTokenClaims): Promise<string> {
  return new SignJWT({
    [c.orgClaim ?? 'org_id']: c.org,
    [c.rolesClaim ?? 'roles']: c.roles ?? [],
    ...(c.email ? { email: c.email } : {}),
    ...(c.name ? { name: c.name } : {}),
    ...(c.extra ?? {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(c.sub)
    .setIssuedAt()
    .setExpirationTime(c.expiresIn ?? '12h')
    .sign(new TextEncoder().encode(secret));
}
