// /templates (resend-compat 7.6): one file for the resource, its endpoints are small and alike.
// Every :id is a template id or alias. GET /templates/:id/versions[/:version_id] (the version
// history) and GET|POST /templates/:id/preview are Mailroom's own; the rest is Resend's.
import { Type } from 'typebox';
import {
  templateChange,
  templateCreate,
  templateDuplicate,
  templateGet,
  templatePreview,
  templatePublish,
  templateRemove,
  templatesList,
  templateVersionGet,
  templateVersions,
} from '../../templates/service.js';
import { invalidField } from '../../errors.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { DOCUMENT_DESCRIPTION } from './templates.schema.js';

const tags = ['Templates'];
const Id = Type.Object({ id: Type.String({ description: 'the template id or alias' }) });
const VersionId = Type.Object({
  id: Type.String({ description: 'the template id or alias' }),
  version_id: Type.String(),
});
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
// Described, not enforced: input.ts checks them with messages that name the variable.
const Variable = Type.Object({
  key: Type.Unknown({
    description:
      '1-50 ASCII letters, digits or underscores; not FIRST_NAME, LAST_NAME, EMAIL, UNSUBSCRIBE_URL, RESEND_UNSUBSCRIBE_URL, contact, this',
  }),
  type: Type.Unknown({ description: '"string" or "number"' }),
  fallback_value: Type.Optional(
    Type.Unknown({ description: 'used when a send gives no value; without it the variable is required' }),
  ),
});
const Body = Type.Object(
  {
    name: field('required on create; up to 256 characters'),
    alias: field('a second identifier usable wherever the id is: letters, digits, ".", "_", "-" (null removes it)'),
    from: field('default sender, "Name <you@example.com>"'),
    subject: field('default subject; may use {{{VARIABLES}}}'),
    reply_to: field('default reply-to: an address or an array'),
    html: field('required on create; {{{KEY}}} and {{{KEY|fallback}}} are variables, values HTML-escaped'),
    text: field('plain-text body; generated from html at send time when absent'),
    variables: Type.Optional(Type.Union([Type.Array(Variable), Type.Null()], { description: 'at most 50' })),
    document: field(DOCUMENT_DESCRIPTION),
  },
  { additionalProperties: true },
);

function previewQuery(v: string | undefined): unknown {
  if (v === undefined || v === '') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    throw invalidField('variables', 'must be a JSON object of sample values.');
  }
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/templates',
    { schema: { tags, summary: 'Create a template (a draft: publish it to send with it)', body: Body } },
    async (req, reply) => {
      return reply.status(201).send(await templateCreate(deps.pool, authOf(req).team_id, req.body ?? {}));
    },
  );
  const ListQuery = Type.Object(
    {
      ...PageQuerySchema.properties,
      search: Type.Optional(
        Type.String({ maxLength: 256, description: 'Mailroom: only templates whose name or alias contains this' }),
      ),
    },
    { additionalProperties: true },
  );
  app.get('/templates', { schema: { tags, summary: 'List templates', querystring: ListQuery } }, async (req) => {
    return templatesList(deps.pool, authOf(req).team_id, parsePage(req.query, false), req.query.search);
  });
  app.get(
    '/templates/:id',
    { schema: { tags, summary: 'Retrieve a template (its working copy)', params: Id } },
    async (req) => {
      return templateGet(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.patch(
    '/templates/:id',
    {
      schema: {
        tags,
        summary: 'Update a template (a content change makes a new draft version)',
        params: Id,
        body: Body,
      },
    },
    async (req) => {
      return templateChange(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.delete(
    '/templates/:id',
    { schema: { tags, summary: 'Delete a template and its versions', params: Id } },
    async (req) => {
      return templateRemove(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.post(
    '/templates/:id/publish',
    { schema: { tags, summary: 'Publish the working copy: sends use it from now on', params: Id } },
    async (req) => {
      return templatePublish(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.post(
    '/templates/:id/duplicate',
    { schema: { tags, summary: 'Copy a template into a new draft', params: Id } },
    async (req) => {
      return templateDuplicate(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  // GET too, so that a read-only dashboard member can preview (it changes nothing).
  app.get(
    '/templates/:id/preview',
    {
      schema: {
        tags,
        summary: 'Render the working copy with sample values given as ?variables=<JSON object> (Mailroom)',
        params: Id,
        querystring: Type.Object({ variables: Type.Optional(Type.String()) }),
      },
    },
    async (req) => {
      return templatePreview(deps.pool, authOf(req).team_id, req.params.id, {
        variables: previewQuery(req.query.variables),
      });
    },
  );
  app.post(
    '/templates/:id/preview',
    {
      schema: {
        tags,
        summary: 'Render the working copy, or unsaved draft content over it, with sample values (Mailroom)',
        params: Id,
        body: Type.Object(
          {
            variables: field(
              '{KEY: value}; variables left without a value stay as written and are listed in `missing`',
            ),
            draft: field(
              'unsaved {subject, html, text, variables} laid over the working copy (checked as on PATCH, not saved)',
            ),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (req) => {
      return templatePreview(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.get(
    '/templates/:id/versions',
    {
      schema: {
        tags,
        summary: "List a template's versions, newest first (Mailroom)",
        params: Id,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      return templateVersions(deps.pool, authOf(req).team_id, req.params.id, parsePage(req.query, false));
    },
  );
  app.get(
    '/templates/:id/versions/:version_id',
    { schema: { tags, summary: 'Retrieve one version of a template (Mailroom)', params: VersionId } },
    async (req) => {
      return templateVersionGet(deps.pool, authOf(req).team_id, req.params.id, req.params.version_id);
    },
  );
}
