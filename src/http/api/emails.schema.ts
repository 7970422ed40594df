// Documentation schemas for the send endpoints. The send path validates bodies itself (one set of
// rules and messages for the API and SMTP), so these describe the fields without enforcing them.
import { Type } from 'typebox';

const field = (description: string) => Type.Optional(Type.Unknown({ description }));

export const SendEmailBody = Type.Object(
  {
    from: field('"you@example.com" or "Your Name <you@example.com>" on a verified domain'),
    to: field('a recipient or an array of up to 50'),
    subject: field('the subject line'),
    cc: field('address or array'),
    bcc: field('address or array'),
    reply_to: field('address or array'),
    html: field('HTML body'),
    text: field('plain-text body; generated from html when absent; "" for none'),
    headers: field('custom headers, an object of strings'),
    attachments: field(
      '[{content (base64 | byte array | Buffer JSON) or path (URL), filename, content_type, content_id}]',
    ),
    tags: field('[{name, value}], up to 75; ASCII letters, digits, _ and -'),
    scheduled_at: field('ISO 8601 or natural language ("in 1 hour", "tomorrow at 9am"), up to 30 days ahead'),
  },
  { additionalProperties: true },
);

export const IdParams = Type.Object({ id: Type.String() });
// The JSON body is parsed on the event loop (JSON.parse of 48 MB: ~0.3 s here), so the limit is
// what the 40 MB email rule (bodies + attachments after base64) needs as base64 strings, which
// the SDKs send, plus room for the JSON around them; attachments as JSON byte arrays (an old
// Python SDK habit, ~3.6 characters per byte) fit up to ~13 MB. Beyond it: 413 before buffering
// the rest (a 141 MB body used to block the loop for 8 s and leave the process at 2 GB).
export const SEND_BODY_LIMIT = 48 * 1024 * 1024;
