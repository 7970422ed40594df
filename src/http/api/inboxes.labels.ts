// /inboxes/:inbox/labels: an inbox's labels (name, #RRGGBB colour).
import { Type } from 'typebox';
import { labelChange, labelCreate, labelRemove, labelsList } from '../../inboxes/labels.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { INBOX_BODY_LIMIT, InboxParam, OpenBody, tags } from './inboxes.schema.js';

const LabelParams = Type.Object({ inbox: Type.String({ maxLength: 400 }), labelId: Type.String({ maxLength: 100 }) });

export default function register(app: ApiApp, deps: ApiDeps): void {
  const limits = { bodyLimit: INBOX_BODY_LIMIT };
  app.get(
    '/inboxes/:inbox/labels',
    { schema: { tags, summary: "List an inbox's labels", params: InboxParam } },
    async (req) => labelsList(deps.pool, authOf(req).team_id, req.params.inbox),
  );
  app.post(
    '/inboxes/:inbox/labels',
    { ...limits, schema: { tags, summary: 'Create a label', params: InboxParam, body: OpenBody } },
    async (req, reply) =>
      reply.status(201).send(await labelCreate(deps.pool, authOf(req).team_id, req.params.inbox, req.body ?? {})),
  );
  app.patch(
    '/inboxes/:inbox/labels/:labelId',
    { ...limits, schema: { tags, summary: 'Update a label', params: LabelParams, body: OpenBody } },
    async (req) => labelChange(deps.pool, authOf(req).team_id, req.params.inbox, req.params.labelId, req.body ?? {}),
  );
  app.delete(
    '/inboxes/:inbox/labels/:labelId',
    { schema: { tags, summary: 'Delete a label', params: LabelParams } },
    async (req) => labelRemove(deps.pool, authOf(req).team_id, req.params.inbox, req.params.labelId),
  );
}
