// The request pipeline every API route shares: authenticate the bearer key (or the dashboard's
// session cookie, see dashboard-auth/sessions.ts), count the request
// against the team's rate limit (headers on every response, success or error), refuse
// sending_access keys outside the send endpoints, and record the request in the request log.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { rateLimitHeaders } from '../ratelimit/limiter.js';
import type { ApiDeps } from './types.js';
import { counters } from '../lib/metrics.js';

export function installApiHooks(app: FastifyInstance, deps: ApiDeps): void {
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.routeOptions.config?.public) return;
    let authError: unknown;
    try {
      // No Authorization header + a dashboard session cookie: the session's team (sessions.ts).
      req.auth =
        (await deps.dashboard?.sessions.authenticateApi(req)) ??
        (await deps.apiKeys.authenticate(req.headers.authorization, req.ip ?? null));
    } catch (err) {
      authError = err;
    }
    // Unauthenticated requests are limited per client address, so bad keys cannot flood us.
    const decision = await deps.limiter.consume(req.auth ? `team:${req.auth.team_id}` : `ip:${req.ip}`);
    req.rate = decision;
    reply.headers(rateLimitHeaders(decision));
    // Unknown routes answer 404/405 whatever the key; the key only attributes the log entry.
    if (authError && !req.is404) throw authError;
    if (!decision.allowed) throw new AppError('rate_limit_exceeded');
    if (req.auth?.permission === 'sending_access' && !req.routeOptions.config?.sending)
      throw new AppError('restricted_api_key');
  });

  // onSend and onResponse take Fastify's callback form: nothing in them waits, and an async hook
  // costs a promise and a microtask turn per request.
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (!req.routeOptions.config?.public && typeof payload === 'string') req.responsePayload = payload;
    done(null, payload);
  });

  app.addHook('onResponse', (req, reply, done) => {
    try {
      recordResponse(req, reply);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  function recordResponse(req: FastifyRequest, reply: FastifyReply): void {
    counters.httpRequests.inc({
      method: req.method,
      route: req.routeOptions.url ?? '(unmatched)',
      status: reply.statusCode,
    });
    if (req.routeOptions.config?.public || (req.auth && 'session' in req.auth)) return; // the log is for API requests, not dashboard clicks
    const parse = (s: string | undefined) => {
      if (!s) return null;
      try {
        return JSON.parse(s);
      } catch {
        return null;
      }
    };
    const response = parse(req.responsePayload);
    deps.recorder.record({
      id: crypto.randomUUID(),
      team_id: req.auth?.team_id ?? null,
      api_key_id: req.auth?.id ?? null,
      method: req.method,
      endpoint: req.url.split('?')[0].replace(/\/{2,}/g, '/'),
      path: req.routeOptions.url ?? req.url.split('?')[0],
      status: reply.statusCode,
      error_name: reply.statusCode >= 400 && response && typeof response.name === 'string' ? response.name : null,
      user_agent: req.headers['user-agent'] ?? null,
      ip: req.ip,
      request_body: req.routeOptions.config?.unloggedBody ? null : (req.body ?? null),
      response_body: response,
      duration_ms: reply.elapsedTime,
      created_at: new Date(Date.now() - reply.elapsedTime).toISOString(),
    });
  }
}
