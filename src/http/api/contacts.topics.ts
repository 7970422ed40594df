// GET /contacts/:id_or_email/topics → every topic with the contact's subscription (its choice,
// else the topic's default; `chosen` and `default_subscription` say which); PATCH with `[{id, subscription}]` (the SDKs' bare array) or
// `{topics: [...]}` → {object: "contact_topics", id}.
import { Type } from 'typebox';
import { contactTopicsGet, contactTopicsUpdate } from '../../contacts/service.js';
import { PageQuerySchema, pageOf, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contacts/:id/topics',
    {
      schema: {
        tags,
        summary: "List a contact's topic subscriptions",
        params: ContactParams,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      const page = parsePage(req.query, true);
      return pageOf((await contactTopicsGet(deps.pool, authOf(req).team_id, req.params.id)).data, page);
    },
  );
  app.patch(
    '/contacts/:id/topics',
    {
      schema: {
        tags,
        summary: "Change a contact's topic subscriptions",
        params: ContactParams,
        body: Type.Unknown({ description: '[{id, subscription: "opt_in"|"opt_out"}] or {topics: [...]}' }),
      },
    },
    async (req) => {
      return contactTopicsUpdate(deps.pool, authOf(req).team_id, req.params.id, req.body);
    },
  );
}
