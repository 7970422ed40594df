// A new broadcast composed from a template (`template_id` on POST /broadcasts, Mailroom's own):
// the template's PUBLISHED version gives the body, its editor document included (the broadcast
// gets its own copy, so later template edits do not change it), and the from, subject and
// reply_to the request leaves out. A template that declares variables is refused: a broadcast
// has no send-time values for them (the dashboard fills them before it saves).
import { invalidField } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { templateFindPublished } from '../store/templates.js';

type Body = Record<string, unknown>;
const BODY_FIELDS = ['html', 'text', 'document'];

/** The create body with the template's content filled in where the body has none; the body as given without `template_id`. */
export async function withTemplate(db: Queryable, teamId: string, body: Body): Promise<Body> {
  const ref = body.template_id;
  if (ref === undefined || ref === null) return body;
  if (typeof ref !== 'string' || !ref || ref.length > 100)
    throw invalidField('template_id', 'must be the id or alias of one of your templates.');
  if (BODY_FIELDS.some((k) => body[k] !== undefined && body[k] !== null))
    throw invalidField('template_id', 'give either `template_id` or the body (`html`, `text`, `document`), not both.');
  const byId = isUuid(ref);
  const t = await templateFindPublished(db, teamId, byId ? ref.toLowerCase() : ref, byId);
  if (!t) throw invalidField('template_id', `no template has the id or alias ${shown(ref)}.`);
  const v = t.published;
  if (!v) throw invalidField('template_id', 'the template has never been published: publish it first.');
  if (v.variables.length)
    throw invalidField(
      'template_id',
      `the template declares variables (${v.variables.map((x) => x.key).join(', ')}): fill them in its html or document and send that instead.`,
    );
  const { template_id: _, ...rest } = body;
  const out: Body = { ...rest, from: rest.from ?? v.from_addr, subject: rest.subject ?? v.subject };
  if (rest.reply_to === undefined && v.reply_to) out.reply_to = v.reply_to;
  // The document is rendered again (its checks and the current renderer); without one, the html and text as published.
  if (v.document) out.document = v.document;
  else [out.html, out.text] = [v.html, v.text_body ?? undefined];
  if (v.document && v.text_body) out.text = v.text_body;
  return out;
}
