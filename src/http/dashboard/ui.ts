// Serves the built dashboard (ui/dist) at `/` and its client routes under `/dashboard/*` (SPA
// fallback), assets under `/assets/`. Nothing else falls back to the SPA: API paths keep their
// JSON 404. Without a build, `/` says how to make one. Text files go out as the build compressed
// them (.br/.gz beside each file, ui/vite.config.ts) when the client accepts it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../../errors.js';

// src/http/dashboard/ui.ts and dist/http/dashboard/ui.js both sit three levels under the root.
export const UI_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ui/dist');

// The SPA's own policy; img-src is open because an email's remote images (shown only when the
// reader asks) load inside the sandboxed srcdoc frame, which inherits this policy.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob: cid:',
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Mailroom</title>
<p>The dashboard is not built. Run <code>npm run build</code> (it runs on <code>npm ci</code>), then reload.</p>
<p>The API is here all the same: see <a href="/docs">/docs</a>.</p>`;

export async function registerUi(app: FastifyInstance): Promise<void> {
  const built = fs.existsSync(path.join(UI_DIST, 'index.html'));
  const config = { public: true };
  const schema = { hide: true };
  if (built)
    await app.register(fastifyStatic, { root: UI_DIST, serve: false, decorateReply: true, preCompressed: true });

  const page = (reply: FastifyReply) => {
    reply.headers({
      'content-security-policy': CSP,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    });
    if (!built) return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply.sendFile('index.html', { cacheControl: false });
  };
  app.get('/', { config, schema }, (_req, reply) => page(reply));
  app.get('/dashboard', { config, schema }, (_req, reply) => page(reply));
  app.get('/dashboard/*', { config, schema }, (_req, reply) => page(reply));
  app.get('/assets/*', { config, schema }, (req, reply) => {
    if (!built) throw new AppError('not_found');
    const rel = (req.params as { '*': string })['*'];
    if (rel.includes('..') || !fs.existsSync(path.join(UI_DIST, 'assets', rel))) throw new AppError('not_found');
    // Hashed file names: cache for a year.
    return reply
      .header('x-content-type-options', 'nosniff')
      .sendFile(path.posix.join('assets', rel), { maxAge: 365 * 86400_000, immutable: true });
  });
  app.get('/favicon.svg', { config, schema }, (_req, reply) => {
    if (!built) throw new AppError('not_found');
    return reply.sendFile('favicon.svg');
  });
}
