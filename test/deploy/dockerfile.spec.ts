import { environmentVariableNames } from '../../libs/common/src/config/environment-names.js';
import { argsOf, parseDockerfile, readRepoFile, runtimePackages } from './deploy-files.js';

const stages = parseDockerfile(readRepoFile('Dockerfile'));
const build = stages.find((s) => s.name === 'build');
const runtime = stages[stages.length - 1];
const pkg = JSON.parse(readRepoFile('package.json')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

describe('Dockerfile', () => {
  it('has a build stage and a separate runtime stage (the image)', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(runtime.from).toBe(build?.from);
  });

  it('the build stage installs every dependency from the lockfile and runs the build', () => {
    const runs = argsOf(build!, 'RUN');
    expect(runs.some((r) => /^npm ci(?! .*--omit)/.test(r))).toBe(true);
    expect(runs).toContain('npm run build');
  });

  it('the runtime stage holds package*.json, `npm ci --omit=dev` and dist/ from the build stage, nothing else', () => {
    expect(argsOf(runtime, 'ADD')).toEqual([]);
    expect(argsOf(runtime, 'COPY')).toEqual(['package.json package-lock.json ./', '--from=build /app/dist ./dist']);
    expect(argsOf(runtime, 'RUN').some((r) => r.startsWith('npm ci --omit=dev'))).toBe(true);
    // The console is served from dist/console (the default CONSOLE_DIR, relative to the working directory).
    expect(argsOf(runtime, 'WORKDIR')).toEqual(['/app']);
    expect(argsOf(build!, 'WORKDIR')).toEqual(['/app']);
    expect(readRepoFile('scripts/build.js')).toContain("path.join(root, 'dist')");
  });

  it('every package the server and the migration entry point import is a production dependency', () => {
    const used = runtimePackages(['apps/api/src/main.ts', 'apps/api/src/migrate.ts']);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !(name in pkg.dependencies))).toEqual([]);
  });

  it('runs as a non-root user, in production mode, with only schema variables set', () => {
    const users = argsOf(runtime, 'USER');
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    const userAt = runtime.instructions.findIndex((i) => i.keyword === 'USER');
    expect(userAt).toBeGreaterThan(runtime.instructions.findIndex((i) => i.keyword === 'RUN'));

    const env = Object.fromEntries(
      argsOf(runtime, 'ENV').flatMap((args) => args.split(' ').map((kv) => kv.split('='))),
    );
    expect(env.NODE_ENV).toBe('production');
    expect(Object.keys(env).filter((name) => !environmentVariableNames().includes(name))).toEqual([]);
  });

  it('checks its health on /api/health at the configured port, and starts the way `npm run start:prod` does', () => {
    const [healthcheck] = argsOf(runtime, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/^--interval=\S+ .*CMD \[/);
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4)) as string[];
    expect(command.join(' ')).toContain("fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health')");
    expect(argsOf(runtime, 'EXPOSE')).toEqual(['3000']);
    expect((JSON.parse(argsOf(runtime, 'CMD')[0]) as string[]).join(' ')).toBe(pkg.scripts['start:prod']);
  });

  it('.dockerignore keeps local installs, builds, data and credentials out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', 'data', '.env', '.env.*']));
    // What `npm run build` reads stays in it.
    const buildInputs = [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'ormconfig.ts',
      'apps',
      'libs',
      'scripts',
    ];
    expect(buildInputs.filter((input) => ignored.includes(input))).toEqual([]);
  });
});
