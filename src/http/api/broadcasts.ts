// /broadcasts (resend-compat 7.5): one file for the resource, its endpoints are small and alike.
// Resend's: create (send: true sends at once), get, list, update and delete (drafts only), send,
// cancel, duplicate, recipients, clicked-links. Mailroom's own: pause, resume, test.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { Caller } from '../../broadcasts/service.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps, type RequestAuth } from '../types.js';
import { DOCUMENT_DESCRIPTION } from './templates.schema.js';

const tags = ['Broadcasts'];
const ListQuery = Type.Intersect([
  PageQuerySchema,
  Type.Object({
    stats: Type.Optional(
      Type.String({
        description:
          'Mailroom: true adds stats to each item (sent, delivered, opened, clicked, unsubscribed, complained, bounced: running counters)',
      }),
    ),
  }),
]);
const Id = Type.Object({ id: Type.String() });
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
// Described, not enforced: input.ts checks each field with a message that names it.
const Body = Type.Object(
  {
    segment_id: field('required on create: the segment whose contacts receive it (audience_id: the deprecated name)'),
    audience_id: field('deprecated: segment_id'),
    from: field('required on create: "Name <you@example.com>" on a verified domain'),
    subject: field('required on create; may use {{{contact.first_name|fallback}}} and the other personalization tags'),
    reply_to: field('an address or an array'),
    html: field('html or text required; personalization tags, {{{RESEND_UNSUBSCRIBE_URL}}}'),
    text: field('plain-text body'),
    document: field(DOCUMENT_DESCRIPTION),
    template_id: field(
      "Mailroom, create only: compose from this template's published version (its document, html and text; its from, subject and reply_to unless given); refused for a template with variables",
    ),
    name: field('internal name'),
    preview_text: field('the inbox preview line (a hidden preheader)'),
    topic_id: field('only contacts subscribed to this topic (their choice, else its default) receive it'),
    send: field('create only: true sends at once (or at scheduled_at)'),
    scheduled_at: field(
      'with send: ISO 8601 or natural language ("in 1 hour", "tomorrow at 9am ET"), up to 30 days ahead',
    ),
  },
  { additionalProperties: true },
);
const SendBody = Type.Union([
  Type.Object(
    { scheduled_at: field('ISO 8601 or natural language; absent or null: now') },
    { additionalProperties: true },
  ),
  Type.Null(),
]);
const TestBody = Type.Object(
  { to: Type.Unknown({ description: 'an address or 1-50 addresses' }) },
  { additionalProperties: true },
);
const RecipientsQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({
        description:
          'sent | delivered | opened | clicked | bounced | complained | unsubscribed | suppressed (default sent)',
      }),
    ),
    email: Type.Optional(Type.String()),
    bounce_type: Type.Optional(Type.String({ description: 'with type=bounced: permanent | transient | undetermined' })),
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const callerOf = (req: { auth?: RequestAuth; ip?: string; headers: Record<string, unknown> }): Caller => {
  const a = authOf(req);
  return { teamId: a.team_id, apiKeyId: a.id, keyDomainId: a.domain_id, actor: actorOf(req) };
};

export default function register(app: ApiApp, deps: ApiDeps): void {
  const svc = deps.broadcasts;
  app.post(
    '/broadcasts',
    { schema: { tags, summary: 'Create a broadcast (a draft, or sent at once with send: true)', body: Body } },
    async (req, reply) => {
      return reply.status(201).send(await svc.create(callerOf(req), req.body ?? {}));
    },
  );
  app.get('/broadcasts', { schema: { tags, summary: 'List broadcasts', querystring: ListQuery } }, async (req) => {
    const stats = req.query.stats;
    if (stats !== undefined && stats !== 'true' && stats !== 'false')
      throw new AppError('validation_error', 'Invalid `stats` parameter: must be true or false.');
    return listBody(await svc.list(authOf(req).team_id, parsePage(req.query, true), stats === 'true'));
  });
  app.get(
    '/broadcasts/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a broadcast, with live progress counts (stats) and any pause reason',
        params: Id,
      },
    },
    async (req) => {
      return svc.get(authOf(req).team_id, req.params.id);
    },
  );
  app.patch(
    '/broadcasts/:id',
    { schema: { tags, summary: 'Update a draft broadcast', params: Id, body: Body } },
    async (req) => {
      return svc.update(authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.delete('/broadcasts/:id', { schema: { tags, summary: 'Delete a draft broadcast', params: Id } }, async (req) => {
    return svc.remove(authOf(req).team_id, req.params.id);
  });
  app.get(
    '/broadcasts/audience',
    {
      schema: {
        tags,
        summary:
          'Mailroom: how many contacts a broadcast to this segment (and topic) would reach now, after the same exclusions',
        querystring: Type.Object(
          {
            segment_id: Type.Optional(Type.String({ maxLength: 100 })),
            topic_id: Type.Optional(Type.String({ maxLength: 100 })),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (req) => {
      return svc.audienceOf(authOf(req).team_id, req.query);
    },
  );
  app.get(
    '/broadcasts/:id/audience',
    {
      schema: {
        tags,
        summary:
          "Mailroom: how many contacts the broadcast would reach if sent now, after the fan-out's exclusions (unsubscribed, topic opt-out, suppressed)",
        params: Id,
      },
    },
    async (req) => {
      return svc.audience(authOf(req).team_id, req.params.id);
    },
  );
  app.post(
    '/broadcasts/:id/send',
    {
      schema: {
        tags,
        summary: 'Send a draft now or at scheduled_at (answers at once; recipients are expanded by a queue job)',
        params: Id,
        body: SendBody,
      },
    },
    async (req) => {
      return svc.send(callerOf(req), req.params.id, req.body ?? {});
    },
  );
  app.post(
    '/broadcasts/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a scheduled, queued, sending or paused broadcast (its undelivered emails are canceled)',
        params: Id,
      },
    },
    async (req) => {
      return svc.cancel(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
  app.post(
    '/broadcasts/:id/duplicate',
    { schema: { tags, summary: 'Copy a broadcast into a new draft', params: Id } },
    async (req, reply) => {
      return reply.status(201).send(await svc.duplicate(callerOf(req), req.params.id));
    },
  );
  app.post(
    '/broadcasts/:id/pause',
    {
      schema: {
        tags,
        summary: 'Mailroom: pause a scheduled, queued or sending broadcast (undelivered emails wait)',
        params: Id,
      },
    },
    async (req) => {
      return svc.pause(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
  app.post(
    '/broadcasts/:id/resume',
    { schema: { tags, summary: 'Mailroom: resume a paused broadcast', params: Id } },
    async (req) => {
      return svc.resume(authOf(req).team_id, req.params.id);
    },
  );
  app.post(
    '/broadcasts/:id/test',
    {
      schema: {
        tags,
        summary:
          'Mailroom: send the broadcast to chosen addresses (personalized as their contact if any; not counted in it)',
        params: Id,
        body: TestBody,
      },
    },
    async (req) => {
      return svc.test(callerOf(req), req.params.id, req.body ?? {});
    },
  );
  app.get(
    '/broadcasts/:id/recipients',
    {
      schema: {
        tags,
        summary: "The broadcast's recipients whose email had an event of a type",
        params: Id,
        querystring: RecipientsQuery,
      },
    },
    async (req) => {
      const { type, email, bounce_type, ...page } = req.query;
      return listBody(
        await svc.recipients(authOf(req).team_id, req.params.id, { type, email, bounce_type }, parsePage(page, false)),
      );
    },
  );
  app.get(
    '/broadcasts/:id/clicked-links',
    {
      schema: {
        tags,
        summary: "The links clicked in the broadcast's emails (clicks, unique clicks)",
        params: Id,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      // The cursor is an opaque link id here, not a uuid: the limit is checked as everywhere.
      const { after, before, ...rest } = req.query;
      const page = {
        ...parsePage(rest, false),
        ...(after !== undefined ? { after } : {}),
        ...(before !== undefined ? { before } : {}),
      };
      return listBody(await svc.clickedLinks(authOf(req).team_id, req.params.id, page));
    },
  );
}
