import { environmentVariableNames, SECRET_VARIABLES } from './environment-names.js';

describe('environment variable names', () => {
  const names = environmentVariableNames();

  it('lists every variable of the schema, once', () => {
    expect(names).toEqual(
      expect.arrayContaining(['NODE_ENV', 'PORT', 'DATABASE_URL', 'OIDC_ISSUER', 'EGRESS_ALLOW', 'HOOK_HTTP_SECRET']),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it('every secret variable is a schema variable, and every variable named like a credential is listed as secret', () => {
    expect(names).toEqual(expect.arrayContaining([...SECRET_VARIABLES]));
    const credentialLike = names.filter((n) => /SECRET|TOKEN$|_KEY$|PASSWORD|HEADERS/.test(n));
    expect(credentialLike.filter((n) => !SECRET_VARIABLES.includes(n))).toEqual([]);
  });
});
