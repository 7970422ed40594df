// Documentation schemas for the send endpoints. The send path validates bodies itself (one set of
// rules and messages for the API and SMTP), so these describe the fields without enforcing them.
import { Type } from 'typebox';

const field = (description: string) => Type.Optional(Type.Unknown({ description }));

export const SendEmailBody = Type.Object({
  from: field('"you@example.com" or "Your Name <you@example.com>" on a verified domain'),
  to: field('a recipient or an array of up to 50'),
  subject: field('the subject line'),
  cc: field('address or array'), bcc: field('address or array'), reply_to: field('address or array'),
  html: field('HTML body'), text: field('plain-text body; generated from html when absent; "" for none'),
  headers: field('custom headers, an object of strings'),
  attachments: field('[{content (base64 | byte array | Buffer JSON) or path (URL), filename, content_type, content_id}]'),
  tags: field('[{name, value}], up to 75; ASCII letters, digits, _ and -'),
  scheduled_at: field('ISO 8601 or natural language ("in 1 hour", "tomorrow at 9am"), up to 30 days ahead'),
}, { additionalProperties: true });

export const IdParams = Type.Object({ id: Type.String() });
export const SEND_BODY_LIMIT = 160 * 1024 * 1024; // 40 MB of attachments as JSON byte arrays is ~4x
