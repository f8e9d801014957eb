// Compiles apps/, libs/ and ormconfig.ts to dist/ with swc (module aliases come from tsconfig.json's paths — the one
// place they are written; jest.config.js reads them too), then builds the web console with Vite into dist/console.
import { transformFile } from '@swc/core';
import { build as viteBuild } from 'vite';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist');
const { compilerOptions } = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));

const sources = [
  ...['apps', 'libs'].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => !path.relative(root, e.parentPath).startsWith(path.join('apps', 'console')))
      .filter(
        (e) => e.isFile() && e.name.endsWith('.ts') && !/\.(spec|e2e)\.ts$/.test(e.name) && !e.name.endsWith('.d.ts'),
      )
      .map((e) => path.join(e.parentPath, e.name)),
  ),
  path.join(root, 'ormconfig.ts'),
];

rmSync(out, { recursive: true, force: true });
await Promise.all(
  sources.map(async (file) => {
    const target = path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
    const { code, map } = await transformFile(file, {
      swcrc: false,
      sourceMaps: true,
      module: { type: 'es6', resolveFully: true },
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        keepClassNames: true,
        baseUrl: root,
        paths: compilerOptions.paths,
      },
      outputPath: target,
    });
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    if (map) writeFileSync(`${target}.map`, map);
  }),
);
console.log(`built ${sources.length} files into dist/`);

await viteBuild({ configFile: path.join(root, 'apps/console/vite.config.ts'), logLevel: 'warn' });
// Precompressed copies (brotli and gzip, maximum level) beside each text asset: the server sends them as they are.
const consoleDir = path.join(out, 'console');
const compressible = readdirSync(consoleDir, { recursive: true, withFileTypes: true }).filter(
  (e) => e.isFile() && /\.(js|css|html|svg|json)$/.test(e.name),
);
for (const e of compressible) {
  const file = path.join(e.parentPath, e.name);
  const body = readFileSync(file);
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
}
console.log(`built the console into dist/console/ (${compressible.length} files precompressed)`);
