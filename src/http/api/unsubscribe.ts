// /u/<token> (public: no key, no CSRF token; the signed token is the credential), for list mail.
// POST without an `action` is RFC 8058 one-click (body `List-Unsubscribe=One-Click`, sent as
// application/x-www-form-urlencoded or multipart/form-data): it unsubscribes at once and answers
// 200. POST with `action` (leave_topic, join_topic, leave_all, resubscribe; `topic` for the topic
// ones) is the preference page's forms. GET (and HEAD) only shows the page: link scanners follow
// every link, so GET never changes anything. A token not signed here, or naming no email, is 404
// and changes nothing. Rate-limited per client address (MAILROOM_UNSUBSCRIBE_RATE_LIMIT); served
// with a strict CSP (no script at all), nosniff, no referrer, no caching, noindex.
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { UNSUBSCRIBE_ACTIONS, type UnsubscribeAction } from '../../contacts/unsubscribe.js';
import { invalidLinkPage, preferencePage } from '../../contacts/preference-page.js';
import { rateLimitHeaders } from '../../ratelimit/limiter.js';
import { AppError } from '../../errors.js';
import type { ApiApp, ApiDeps } from '../types.js';

const BODY_LIMIT = 16 * 1024;
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const NOTICES: Record<UnsubscribeAction, string> = {
  one_click: 'You are unsubscribed.',
  leave_topic: 'You are unsubscribed from this topic.',
  join_topic: 'You are subscribed to this topic.',
  leave_all: 'You are unsubscribed from all mail.',
  resubscribe: 'You are subscribed again.',
};

/** Form fields of a urlencoded or multipart/form-data body (small: at most BODY_LIMIT bytes). */
export function formFields(body: unknown, contentType: string | undefined): Record<string, string> {
  if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
    return Object.fromEntries(
      Object.entries(body as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
    ) as Record<string, string>;
  }
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  const boundary = /multipart\/form-data/i.test(contentType ?? '')
    ? /boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1]
    : undefined;
  if (!boundary) return Object.fromEntries(new URLSearchParams(text));
  const out: Record<string, string> = {};
  for (const part of text.split(`--${boundary}`)) {
    const sep = part.indexOf('\r\n\r\n');
    if (sep < 0) continue;
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, sep))?.[1];
    if (name !== undefined && !(name in out)) out[name] = part.slice(sep + 4).replace(/\r\n$/, '');
  }
  return out;
}

const page = (reply: FastifyReply, status: number, html: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', CSP)
    .send(html);

export default function register(app: ApiApp, deps: ApiDeps): void {
  const { service, limiter } = deps.unsubscribe;
  const params = Type.Object({ token: Type.String({ maxLength: 200 }) });

  async function limited(ip: string, reply: FastifyReply): Promise<void> {
    const decision = await limiter.consume(`unsub:${ip}`);
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) throw new AppError('rate_limit_exceeded');
  }

  app.get('/u/:token', { config: { public: true }, schema: { hide: true, params } }, async (req, reply) => {
    await limited(req.ip, reply);
    const view = await service.view(req.params.token);
    if (!view) return page(reply, 404, invalidLinkPage());
    return page(reply, 200, preferencePage(view, `/u/${req.params.token}`));
  });

  // Its own content-type parsers (any body, kept as text) stay inside this plugin: the API still refuses form bodies.
  app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(
      '/u/:token',
      { config: { public: true }, bodyLimit: BODY_LIMIT, schema: { hide: true, params } },
      async (req, reply) => {
        await limited(req.ip, reply);
        const fields = formFields(req.body, req.headers['content-type']);
        const action = (fields.action ?? 'one_click') as UnsubscribeAction;
        if (!UNSUBSCRIBE_ACTIONS.includes(action)) return page(reply, 400, invalidLinkPage());
        const out = await service.apply(req.params.token, action, {
          topicId: fields.topic,
          via: fields.action ? 'page' : 'one_click',
        });
        if (!out) return page(reply, 404, invalidLinkPage());
        return page(reply, 200, preferencePage(out.view, `/u/${req.params.token}`, NOTICES[action]));
      },
    );
  });
}
