// The body of POST and PATCH /broadcasts checked field by field (resend-compat 7.5), each error
// a 422 naming its field. PATCH merges onto the draft and the result is checked as a whole.
import { invalidField, missingField } from '../errors.js';
import { parseAddress, parseAddressList, shown } from '../mime/addresses.js';
import { MAX_SUBJECT } from '../emails/validate.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import type { BroadcastContent } from '../store/broadcasts.js';
import { segmentFind } from '../store/segments.js';
import { topicFind } from '../store/topics.js';
import { documentInput } from '../templates/document-input.js';

type Body = Record<string, unknown>;
const has = (b: Body, k: string) => b[k] !== undefined;

function text(b: Body, k: string, max: number): string | null {
  const v = b[k];
  if (v === null) return null;
  if (typeof v !== 'string') throw invalidField(k, 'must be a string.');
  if (v.length > max) throw invalidField(k, `must be at most ${max} characters.`);
  return v;
}

async function segmentOf(db: Queryable, teamId: string, b: Body): Promise<string | null | undefined> {
  const key = has(b, 'segment_id') ? 'segment_id' : has(b, 'audience_id') ? 'audience_id' : undefined;
  if (!key) return undefined;
  const v = b[key];
  if (v === null) return null;
  if (typeof v !== 'string' || !isUuid(v)) throw invalidField(key, 'must be the id of one of your segments.');
  const s = await segmentFind(db, teamId, v.toLowerCase());
  if (!s) throw invalidField(key, `no segment has the id ${shown(v)}.`);
  return s.id;
}

async function topicOf(db: Queryable, teamId: string, b: Body): Promise<string | null | undefined> {
  if (!has(b, 'topic_id')) return undefined;
  const v = b.topic_id;
  if (v === null) return null;
  if (typeof v !== 'string' || !isUuid(v))
    throw invalidField('topic_id', 'must be the id of one of your topics, or null.');
  const t = await topicFind(db, teamId, v.toLowerCase());
  if (!t) throw invalidField('topic_id', `no topic has the id ${shown(v)}.`);
  return t.id;
}

/** The content after applying `b` onto `base` (an empty base for create); every field checked. */
export async function contentOf(
  db: Queryable,
  teamId: string,
  b: Body,
  base?: BroadcastContent,
): Promise<BroadcastContent> {
  const c: BroadcastContent = base
    ? { ...base }
    : {
        name: '',
        segment_id: null,
        topic_id: null,
        from_header: null,
        subject: null,
        reply_to: null,
        preview_text: null,
        html: null,
        text_body: null,
        document: null,
      };
  if (has(b, 'name')) {
    const n = text(b, 'name', 256);
    if (n !== null && /[\u0000-\u001f\u007f]/.test(n))
      throw invalidField('name', 'must not contain line breaks or control characters.');
    c.name = n ?? '';
  }
  const seg = await segmentOf(db, teamId, b);
  if (seg !== undefined) c.segment_id = seg;
  const topic = await topicOf(db, teamId, b);
  if (topic !== undefined) c.topic_id = topic;
  if (has(b, 'from')) {
    const f = text(b, 'from', 512);
    if (f !== null) parseAddress(f, 'from');
    c.from_header = f === null ? null : f.trim();
  }
  if (has(b, 'subject')) {
    const s = text(b, 'subject', MAX_SUBJECT);
    if (s !== null && /[\r\n]/.test(s)) throw invalidField('subject', 'must not contain line breaks.');
    c.subject = s;
  }
  if (has(b, 'reply_to'))
    c.reply_to =
      b.reply_to === null
        ? null
        : parseAddressList(b.reply_to, 'reply_to').map((a) => (a.name ? `${a.name} <${a.address}>` : a.address));
  if (has(b, 'preview_text')) c.preview_text = text(b, 'preview_text', 1000);
  // A document (the visual editor's) is rendered into the html and text; html alone drops it.
  const doc = await documentInput(b);
  if (doc) [c.html, c.text_body, c.document] = [doc.html, doc.text, doc.document];
  else if (doc === null || has(b, 'html')) c.document = null;
  if (has(b, 'html')) c.html = text(b, 'html', 5_000_000);
  if (has(b, 'text')) c.text_body = text(b, 'text', 5_000_000);
  if (!base) {
    if (!c.segment_id) throw missingField('segment_id');
    if (!c.from_header) throw missingField('from');
    if (!c.subject) throw missingField('subject');
    if (!c.html && !c.text_body) throw missingField('html` or `text');
  }
  return c;
}

/** What a broadcast must have to be sent (a draft may lack some of it after PATCH with nulls). */
export function checkSendable(c: BroadcastContent): void {
  if (!c.segment_id) throw missingField('segment_id');
  if (!c.from_header) throw missingField('from');
  if (!c.subject) throw missingField('subject');
  if (!c.html && !c.text_body) throw missingField('html` or `text');
}
