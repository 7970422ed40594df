// Builds the Fastify server: Resend-compatible JSON everywhere (errors, 404, 405), duplicate
// slashes collapsed, empty JSON bodies accepted, TypeBox validation with field-naming messages,
// OpenAPI from the route schemas, and the API routes. Listening is the caller's business.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { AppError } from '../errors.js';
import { toAppError } from './errors.js';
import { assertStorableText } from './text-guard.js';
import { installApiHooks } from './hooks.js';
import { registerDocs } from './docs.js';
import { registerRoutes } from './routes.js';
import type { ApiDeps } from './types.js';

const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function buildServer(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // The client address of sign-in throttling, rate limits, sessions and logs: behind a proxy,
    // X-Forwarded-For from the peers MAILROOM_TRUST_PROXY names, else the peer itself.
    trustProxy: deps.config.trustProxy,
    return503OnClosing: true,
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 500 },
    ajv: { customOptions: { coerceTypes: false } },
    // Errors before routing (bad percent-encoding) and at the connection (headers too large,
    // malformed requests) answer in Resend's shape too, never Fastify's or Node's own.
    frameworkErrors: (err, _req, reply) => {
      const appErr = toAppError(err);
      (reply as unknown as FastifyReply).status(appErr.status).send(appErr.toBody());
    },
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      const appErr = toAppError(err);
      const status =
        (err as { code?: string }).code === 'HPE_HEADER_OVERFLOW' ? 431 : appErr.status < 500 ? appErr.status : 400;
      const body = JSON.stringify(
        status === appErr.status
          ? appErr.toBody()
          : { statusCode: 400, message: 'The request could not be read.', name: 'validation_error' },
      );
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 414 ? 'URI Too Long' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  });
  app.setValidatorCompiler(TypeBoxValidatorCompiler);

  // SDKs send `Content-Type: application/json` on body-less POST/DELETE: an empty body is no body.
  app.removeContentTypeParser('application/json');
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    jsonParser(req, body as string, done);
  });
  // Checked after parsing (not in the parser) so that the request log still shows the body sent.
  // Fastify's callback form: an async hook costs a promise and a microtask turn per request.
  app.addHook('preValidation', (req, _reply, done) => {
    try {
      assertStorableText(req.body, 'body');
      assertStorableText(req.params, 'parameter');
      assertStorableText(req.query, 'query parameter');
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500 && appErr.code === 'application_error')
      deps.log.error('request failed', { err, method: req.method, url: req.url });
    if (appErr.code === 'method_not_allowed' && (err as { allow?: string }).allow)
      reply.header('allow', (err as { allow?: string }).allow);
    return reply.status(appErr.status).send(appErr.toBody());
  });

  // Unknown path → 404 not_found; known path with another method → 405 method_not_allowed.
  const routes: { method: string; re: RegExp }[] = [];
  app.addHook('onRoute', (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const re = new RegExp(
      '^' +
        r.url
          .replace(/\/+$/, '')
          .replace(/:[^/]+/g, '[^/]+')
          .replace(/\*/g, '.*') +
        '/?$',
    );
    for (const m of methods) if (m !== 'HEAD') routes.push({ method: m, re });
  });
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0].replace(/\/{2,}/g, '/');
    const allow = routes.filter((r) => r.re.test(path)).map((r) => r.method);
    const err = allow.length ? new AppError('method_not_allowed') : new AppError('not_found');
    if (allow.length) reply.header('allow', [...new Set(allow)].join(', '));
    return reply.status(err.status).send(err.toBody());
  });

  installApiHooks(app, deps);
  await registerDocs(app);
  await registerRoutes(app, deps);
  return app;
}
