// Request schemas shared by the domain endpoints. Enumerated fields are plain strings here so
// that the service can answer with Resend's own error names (invalid_region, ...).
import { Type } from 'typebox';

const Capabilities = Type.Object(
  { sending: Type.Optional(Type.String()), receiving: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

export const DomainSettings = {
  open_tracking: Type.Optional(Type.Boolean()),
  click_tracking: Type.Optional(Type.Boolean()),
  tls: Type.Optional(Type.String()),
  capabilities: Type.Optional(Capabilities),
  tracking_subdomain: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // Mailroom extension: a second DKIM key (Ed25519, RFC 8463) signing beside RSA once verified.
  dkim_ed25519: Type.Optional(
    Type.Boolean({
      description:
        'Mailroom extension: also sign with an Ed25519 key (own selector `mailroom-ed25519`) once its DKIM record verifies',
    }),
  ),
};

export const CreateDomainBody = Type.Object(
  {
    name: Type.String(),
    region: Type.Optional(Type.String()),
    custom_return_path: Type.Optional(Type.String()),
    ...DomainSettings,
  },
  { additionalProperties: true },
);

export const UpdateDomainBody = Type.Object(DomainSettings, { additionalProperties: true });
export const IdParams = Type.Object({ id: Type.String() });
