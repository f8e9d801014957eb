import type { AppConfig } from '@warden/common';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The headers every response carries (console files, API answers and errors alike). The CSP lets the console run
 * only its own bundle: scripts from this origin, no inline script; styles from this origin plus inline ones (Mantine
 * writes its CSS variables and component styles into <style> tags at run time); fetches to this origin and, with
 * OIDC, to the identity provider (the console's code + PKCE exchange runs in the browser). Nobody may frame it.
 */
export function securityHeaders(config: AppConfig): RequestHandler {
  const issuer = config.authMode === 'oidc' && config.oidcIssuer ? new URL(config.oidcIssuer).origin : undefined;
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': issuer ? ["'self'", issuer] : ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Served over plain HTTP inside many networks: HSTS is for the TLS front, which knows the deployment.
    strictTransportSecurity: false,
  });
}
