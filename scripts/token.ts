/** Prints a dev (HS256) token: npm run token -- --sub alice --org acme --roles admin [--expires 12h] */
import { parseArgs } from 'node:util';
import { DEV_AUTH_SECRET_DEFAULT } from '../libs/common/src/config/environment.js';
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';

const { values } = parseArgs({
  options: {
    sub: { type: 'string' },
    org: { type: 'string' },
    roles: { type: 'string', default: '' },
    email: { type: 'string' },
    name: { type: 'string' },
    expires: { type: 'string', default: '12h' },
  },
});
if (!values.sub || !values.org) {
  console.error('usage: npm run token -- --sub <user> --org <org> [--roles admin,member] [--expires 12h]');
  process.exit(2);
}
const token = await mintDevToken(process.env.AUTH_DEV_SECRET ?? DEV_AUTH_SECRET_DEFAULT, {
  sub: values.sub,
  org: values.org,
  roles: values.roles
    ? values.roles
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean)
    : [],
  email: values.email,
  name: values.name,
  expiresIn: values.expires,
  orgClaim: process.env.AUTH_ORG_CLAIM,
  rolesClaim: process.env.AUTH_ROLES_CLAIM,
});
console.log(token);
