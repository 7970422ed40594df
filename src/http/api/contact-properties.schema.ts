// Request schemas shared by the contact-property endpoints; src/contacts/properties.ts checks the
// fields (to answer with Resend's error names), so the body schema only says which fields exist.
import { Type } from 'typebox';

export const PropertyBody = Type.Object(
  {
    key: Type.Optional(Type.Unknown()),
    type: Type.Optional(Type.Unknown()),
    fallback_value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

export const PropertyParams = Type.Object({ id: Type.String() });

export const tags = ['Contact properties'];
