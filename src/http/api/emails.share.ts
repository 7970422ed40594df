// POST /emails/:id/share {expires_in?} → {object: "email", id, url}: a signed, expiring public view
// of a sent email (the SDK's resend.emails.share). GET /share/<id>?expires&signature shows the HTML
// (or the text) with no key: the link is the credential; it changes nothing, is rate-limited per
// client address, and is served so that the email's markup cannot run script or load anything
// but images (CSP sandbox, nosniff, no referrer).
import { Type } from 'typebox';
import { AppError, invalidField, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { sharedEmailPage, teamHasEmail } from '../../emails/views/share.js';
import { rateLimitHeaders } from '../../ratelimit/limiter.js';
import { SignedLinkQuery } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

/** Resend's default and maximum expiry; an operator may allow longer (MAILROOM_SHARE_MAX_HOURS). */
const RESEND_TTL_MS = 48 * 3600_000;
const UNIT_MS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3600_000,
  hr: 3600_000,
  hrs: 3600_000,
  hour: 3600_000,
  hours: 3600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};
const PART = /(\d{1,7})\s*([a-z]*)/gy;

/**
 * A duration as Resend takes it ("10m", "2 hours", "1 day", "1h 30m"; also a number of seconds)
 * → milliseconds. Parts add up; a part without a unit is seconds.
 */
export function shareTtl(v: unknown, maxHours: number): number {
  const max = maxHours * 3600_000;
  if (v === undefined || v === null || v === '') return Math.min(RESEND_TTL_MS, max);
  const bad = () => invalidField('expires_in', 'must be a duration such as "30m", "2 hours", "1 day" or "1h 30m".');
  let ms = 0;
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) throw bad();
    ms = v * 1000;
  } else if (typeof v === 'string') {
    const text = v.trim().toLowerCase();
    if (!text || text.length > 64) throw bad();
    PART.lastIndex = 0;
    let at = 0;
    while (at < text.length) {
      PART.lastIndex = at;
      const m = PART.exec(text);
      if (!m || !(m[2] === '' || m[2] in UNIT_MS)) throw bad();
      ms += Number(m[1]) * UNIT_MS[m[2] || 's'];
      at = PART.lastIndex;
      while (text[at] === ' ' || text[at] === ',') at++;
    }
  } else throw bad();
  if (ms < 60_000 || ms > max) {
    throw invalidField('expires_in', `must be between 1 minute and ${maxHours} hour${maxHours === 1 ? '' : 's'}.`);
  }
  return ms;
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/emails/:id/share',
    {
      schema: {
        tags: ['Emails'],
        summary: 'Create a public, expiring link to view a sent email',
        params: Type.Object({ id: Type.String() }),
        body: Type.Optional(Type.Object({ expires_in: Type.Optional(Type.Unknown()) }, { additionalProperties: true })),
      },
      // The Go SDK posts no body when no option is given: that is the default expiry, not a 422.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => {
      const { id } = req.params;
      if (!isUuid(id) || !(await teamHasEmail(deps.pool, authOf(req).team_id, id))) throw notFound('Email');
      const link = deps.downloads.link(
        'share',
        id,
        Date.now(),
        shareTtl(req.body?.expires_in, deps.config.shareMaxHours),
      );
      return { object: 'email', id, url: link.download_url, expires_at: link.expires_at };
    },
  );

  app.get(
    '/share/:id',
    {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ id: Type.String() }), querystring: SignedLinkQuery },
    },
    async (req, reply) => {
      const decision = await deps.limiter.consume(`share:${req.ip}`);
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) throw new AppError('rate_limit_exceeded');
      const { id } = req.params;
      const { expires, signature } = req.query;
      if (!isUuid(id) || !deps.downloads.valid('share', id, expires, signature))
        throw new AppError('not_found', 'This link is not valid or has expired.');
      const body = await sharedEmailPage(deps.pool, id, deps.bodies);
      if (body === undefined) throw new AppError('not_found', 'This link is not valid or has expired.');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex')
        .header(
          'content-security-policy',
          "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; font-src data: https:; sandbox allow-popups allow-popups-to-escape-sandbox",
        )
        .send(body);
    },
  );
}
