// GET|POST /broadcasts/:id/preview (Mailroom's own): the broadcast as one contact would get it
// (broadcasts/preview.ts). POST may carry unsaved content laid over the saved broadcast, so that
// an editor sees a draft before saving it; GET renders the saved copy (dashboard members may only
// read). Nothing is stored or sent.
import { Type } from 'typebox';
import { broadcastPreview } from '../../broadcasts/preview.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Broadcasts'];
const Id = Type.Object({ id: Type.String() });
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Who = {
  contact_id: field('the contact to render it for (or `email`)'),
  email: field('the address of the contact to render it for; an address that is no contact gets only its address'),
};
const Query = Type.Object(
  { contact_id: Type.Optional(Type.String()), email: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
// Described, not enforced: broadcasts/input.ts checks each field with a message that names it.
const Body = Type.Object(
  {
    ...Who,
    subject: field('unsaved subject to preview instead of the saved one'),
    html: field('unsaved html'),
    text: field('unsaved text'),
    preview_text: field('unsaved preview text'),
    from: field('unsaved from'),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/broadcasts/:id/preview',
    {
      schema: {
        tags,
        summary: 'Mailroom: the saved broadcast rendered for one contact (?contact_id= or ?email=); nothing is sent',
        params: Id,
        querystring: Query,
      },
    },
    async (req) => {
      return broadcastPreview(deps.pool, authOf(req).team_id, req.params.id, req.query, {});
    },
  );
  app.post(
    '/broadcasts/:id/preview',
    {
      schema: {
        tags,
        summary:
          'Mailroom: the broadcast, with any unsaved content given, rendered for one contact; nothing is stored or sent',
        params: Id,
        body: Body,
      },
    },
    async (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      return broadcastPreview(deps.pool, authOf(req).team_id, req.params.id, body, body);
    },
  );
}
