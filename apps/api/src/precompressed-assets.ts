import { existsSync, statSync, createReadStream } from 'node:fs';
import path from 'node:path';

interface Req {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}
interface Res {
  setHeader(name: string, value: string | number): void;
  statusCode: number;
  end(): void;
}
type Next = () => void;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};
const ASSET = /^\/assets\/[\w.-]+\.(js|css|svg|json)$/;
const ENCODINGS = [
  { name: 'br', ext: '.br' },
  { name: 'gzip', ext: '.gz' },
];

/**
 * The console's hashed assets as precompressed at build (scripts/build.js): brotli or gzip, whichever the browser
 * accepts (br first), with Content-Encoding, Vary: Accept-Encoding and a year's immutable cache. Anything else (no
 * precompressed copy, a browser accepting neither) falls through to the static files as they are.
 */
export function precompressedAssets(consoleDir: string) {
  return (req: Req, res: Res, next: Next): void => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !ASSET.test(req.path)) {
      next();
      return;
    }
    const accepted = String(req.headers['accept-encoding'] ?? '');
    const file = path.join(consoleDir, req.path);
    const encoding = ENCODINGS.find((e) => new RegExp(`\\b${e.name}\\b`).test(accepted) && existsSync(file + e.ext));
    res.setHeader('vary', 'Accept-Encoding');
    if (!encoding) {
      next();
      return;
    }
    res.setHeader('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream');
    res.setHeader('content-encoding', encoding.name);
    res.setHeader('content-length', statSync(file + encoding.ext).size);
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file + encoding.ext).pipe(res as unknown as NodeJS.WritableStream);
  };
}
