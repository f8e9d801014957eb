import type { AppConfig } from '@warden/common';
import { DEMO_ADMIN, DEMO_ORG } from './demo/demo-seeder.js';

/** The last thing `npm start` prints: where the console is and, in dev auth, how to sign in to it. */
export function startBanner(config: AppConfig): string {
  const url = `${config.publicUrl}/`;
  const lines = ['', `  Warden console: ${url}`];
  if (config.devSignIn) {
    lines.push(
      `  Dev sign-in: open it and sign in as user "${DEMO_ADMIN}", org "${DEMO_ORG}", role "admin" ` +
        '(the form is filled in).',
    );
    lines.push('  Dev auth is for trying Warden out: anyone can sign in as anyone. Set AUTH_MODE=oidc for real users.');
  } else if (config.authMode === 'oidc') {
    lines.push(`  Sign in through your identity provider (${config.oidcIssuer ?? config.oidcJwksUrl ?? 'OIDC'}).`);
  }
  lines.push('');
  return lines.join('\n');
}
