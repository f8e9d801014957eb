import type { ServeStaticModuleOptions } from '@nestjs/serve-static';
import type { AppConfig } from '@warden/common';

/** Paths that belong to the server: never answered with the console's index.html (unknown ones stay JSON 404s). */
const SERVER_PATHS = /^\/(api|metrics|demo-oa|scim)(\/|$)/;

/**
 * The web console (apps/console, built into dist/console) at `/`: its files, and index.html for any other path so
 * that client-side routes survive a reload. Hashed assets are cached for good; index.html is always revalidated.
 */
export function consoleStaticOptions(config: AppConfig): ServeStaticModuleOptions[] {
  return [
    {
      rootPath: config.consoleDir,
      exclude: SERVER_PATHS,
      serveStaticOptions: {
        setHeaders: (res: { setHeader(name: string, value: string): void }, file: string) =>
          res.setHeader(
            'cache-control',
            /[\\/]assets[\\/]/.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
          ),
      },
    },
  ];
}
