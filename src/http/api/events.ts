// /events and /events/:id_or_name (resend-compat 8.2): custom event definitions, a name and an
// optional payload schema. One file for the resource: its endpoints are small and alike.
import { Type } from 'typebox';
import {
  customEventDefinitionChange,
  customEventDefinitionCreate,
  customEventDefinitionGet,
  customEventDefinitionRemove,
  customEventDefinitionsList,
} from '../../custom-events/definitions.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Events'];
/** The definition's id or its exact name (Node's SDK percent-encodes it; it arrives decoded). */
const Params = Type.Object({ id: Type.String({ description: 'the event definition id or name' }) });
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Body = Type.Object(
  {
    name: field('unique per team; must not start with "resend:" and must not be a UUID; fixed at creation'),
    schema: field('{field: "string"|"number"|"boolean"|"date"} or null; required on PATCH (null clears it)'),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post('/events', { schema: { tags, summary: 'Create an event definition', body: Body } }, async (req, reply) => {
    return reply.status(201).send(await customEventDefinitionCreate(deps.pool, authOf(req).team_id, req.body ?? {}));
  });
  app.get(
    '/events',
    { schema: { tags, summary: 'List event definitions', querystring: PageQuerySchema } },
    async (req) => {
      return customEventDefinitionsList(deps.pool, authOf(req).team_id, parsePage(req.query, false));
    },
  );
  app.get(
    '/events/:id',
    { schema: { tags, summary: 'Retrieve an event definition by id or name', params: Params } },
    async (req) => {
      return customEventDefinitionGet(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.patch(
    '/events/:id',
    { schema: { tags, summary: "Replace an event definition's schema (null clears it)", params: Params, body: Body } },
    async (req) => {
      return customEventDefinitionChange(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.delete(
    '/events/:id',
    { schema: { tags, summary: 'Delete an event definition (recorded events stay)', params: Params } },
    async (req) => {
      return customEventDefinitionRemove(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
}
