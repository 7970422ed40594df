// GET /emails/receiving/:id?html_format=data_uri|cid → one received email with its body, headers,
// authentication results, a signed link to the raw message and its attachments.
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { detailView } from '../../inbound/views.js';
import { receivedGet } from '../../inbound/queries.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

const Query = Type.Object({
  html_format: Type.Optional(
    Type.String({ description: 'data_uri (default): inline images as data: URIs; cid: keep cid: references' }),
  ),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/receiving/:id',
    { schema: { tags: ['Receiving'], summary: 'Retrieve a received email', params: IdParams, querystring: Query } },
    async (req) => {
      const { id } = req.params;
      const format = req.query.html_format ?? 'data_uri';
      if (format !== 'data_uri' && format !== 'cid') throw invalidField('html_format', 'must be "data_uri" or "cid".');
      const { email, attachments } = await receivedGet(deps.pool, authOf(req).team_id, id);
      return detailView(deps.pool, deps.downloads, email, attachments, format);
    },
  );
}
