import path from 'node:path';
import { defineConfig } from 'vite';

// The console is served by the API server from dist/console (see apps/api serve-static); API calls go to /api on
// the same origin, so no proxy or CORS is needed in production. `vite dev` proxies /api to a running server.
const here = import.meta.dirname;

export default defineConfig({
  root: here,
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    // Mantine marks its modules "use client" (for React Server Components); meaningless in a client-only bundle.
    rolldownOptions: {
      onLog: (level, log, handle) => {
        if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handle(level, log);
      },
    },
  },
  server: { proxy: { '/api': process.env.WARDEN_API ?? 'http://127.0.0.1:3000' } },
});
