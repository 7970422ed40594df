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
