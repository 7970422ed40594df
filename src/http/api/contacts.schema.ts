// Request schemas shared by the contact endpoints. Fields are checked by src/contacts (to answer
// with Resend's error names), so the body schemas only say which fields exist.
import { Type } from 'typebox';

export const ContactBody = Type.Object(
  {
    email: Type.Optional(Type.Unknown()),
    first_name: Type.Optional(Type.Unknown()),
    last_name: Type.Optional(Type.Unknown()),
    unsubscribed: Type.Optional(Type.Unknown()),
    properties: Type.Optional(Type.Unknown()),
    segments: Type.Optional(Type.Unknown()),
    topics: Type.Optional(Type.Unknown()),
    audience_id: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

/** `:id` is a contact id or its address (raw or percent-encoded). */
export const ContactParams = Type.Object({ id: Type.String() });
export const AudienceParams = Type.Object({ audience_id: Type.String() });
export const AudienceContactParams = Type.Object({ audience_id: Type.String(), id: Type.String() });

export const tags = ['Contacts'];

/** Mailroom's search parameters (GET /contacts, /contacts/count, /contacts/export), checked by contacts/search.ts. */
export const MatchQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Mailroom: part of the address or name (1-200 characters)' }),
    ),
    filter: Type.Optional(
      Type.String({
        maxLength: 16_000,
        description:
          'Mailroom: a rule tree as JSON, the language of filter segments (properties, topics, segments, unsubscribed)',
      }),
    ),
    segment_id: Type.Optional(Type.String({ description: 'Only the contacts of this segment (either kind)' })),
    audience_id: Type.Optional(Type.String({ description: 'The legacy name of segment_id' })),
    ids: Type.Optional(Type.String({ maxLength: 40_000, description: 'Mailroom: comma-separated contact ids' })),
    properties: Type.Optional(
      Type.String({
        maxLength: 4_000,
        description: 'Mailroom: comma-separated property keys each item (or CSV row) carries',
      }),
    ),
  },
  { additionalProperties: true },
);
