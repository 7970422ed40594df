// Domain claims (the SDK's resend.domains.claims.*): POST /domains/claim {name, region?,
// custom_return_path?, open_tracking?, click_tracking?, tracking_subdomain?} → 201 a new claim, or
// 200 the identical open claim unchanged; GET /domains/:id/claim (id: the domain_id the claim
// named) → the latest claim; POST /domains/:id/claim/verify → the TXT record checked and the
// claim moved on (domains/claims.ts says how); GET /domains/claims (Mailroom's, for the dashboard)
// lists the team's claims and those on its domains. Each answers the SDK's DomainClaim, object "domain_claim".
import { Type } from 'typebox';
import type { DomainInput } from '../../domains/service.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './domains.schema.js';

const tags = ['Domains'];
const ClaimBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    custom_return_path: Type.Optional(Type.String()),
    open_tracking: Type.Optional(Type.Boolean()),
    click_tracking: Type.Optional(Type.Boolean()),
    tracking_subdomain: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/domains/claim',
    { schema: { tags, summary: 'Claim a domain another team holds', body: ClaimBody } },
    async (req, reply) => {
      const { created, claim } = await deps.domains.claims.create(
        authOf(req).team_id,
        req.body as DomainInput,
        actorOf(req),
      );
      return reply.code(created ? 201 : 200).send(claim);
    },
  );
  app.get(
    '/domains/claims',
    {
      schema: {
        tags,
        summary: "Mailroom: the team's claims, and claims on its domains (verified, or that took one)",
      },
    },
    async (req) => {
      return deps.domains.claims.aboutTeam(authOf(req).team_id);
    },
  );
  app.get(
    '/domains/:id/claim',
    { schema: { tags, summary: 'Retrieve the latest claim for a claimed domain id', params: IdParams } },
    async (req) => {
      return deps.domains.claims.get(authOf(req).team_id, req.params.id);
    },
  );
  app.post(
    '/domains/:id/claim/verify',
    { schema: { tags, summary: 'Verify a domain claim (and move the domain once verified)', params: IdParams } },
    async (req) => {
      return deps.domains.claims.verify(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
}
