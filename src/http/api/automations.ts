// /automations, /automations/:id[/duplicate|/stop|/counts|/runs[/:run_id]] (resend-compat 8.3; counts is a
// Mailroom extension). One file for the resource: its endpoints are small and alike; the work is in
// src/automations/.
import { Type } from 'typebox';
import {
  automationChange,
  automationCounts,
  automationCreate,
  automationDuplicate,
  automationGet,
  automationRemove,
  automationRunGet,
  automationRuns,
  automationStop,
  automationsList,
} from '../../automations/service.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Automations'];
const Params = Type.Object({ id: Type.String({ description: 'the automation id' }) });
const RunParams = Type.Object({
  id: Type.String({ description: 'the automation id' }),
  run_id: Type.String({ description: 'the run id' }),
});
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Body = Type.Object(
  {
    name: field('the automation name'),
    status: field('"enabled" or "disabled" (default disabled): only an enabled automation starts runs'),
    steps: field(
      '[{key, type, config}]: exactly one trigger; types trigger, send_email, delay, wait_for_event, condition, contact_update, contact_delete, add_to_segment; a trigger or wait may name a system event (resend:contact.created, resend:contact.updated, resend:email.sent|delivered|delivery_delayed|opened|clicked|bounced|complained|failed|suppressed)',
    ),
    connections: field(
      '[{from, to, type?}]: type default, condition_met, condition_not_met, timeout or event_received',
    ),
    reentry: field(
      'Mailroom setting: "after_end" (default: a contact\'s new run only once its previous run ended), "always" (a run per trigger event) or "never" (once per contact)',
    ),
  },
  { additionalProperties: true },
);
const ListQuery = Type.Intersect([PageQuerySchema, Type.Object({ status: Type.Optional(Type.String()) })]);

export default function register(app: ApiApp, deps: ApiDeps): void {
  const team = (req: Parameters<typeof authOf>[0]) => authOf(req).team_id;
  app.post('/automations', { schema: { tags, summary: 'Create an automation', body: Body } }, async (req, reply) => {
    return reply.status(201).send(await automationCreate(deps.pool, team(req), req.body ?? {}, actorOf(req)));
  });
  app.get('/automations', { schema: { tags, summary: 'List automations', querystring: ListQuery } }, async (req) => {
    return automationsList(deps.pool, team(req), parsePage(req.query, false), req.query.status);
  });
  app.get(
    '/automations/:id',
    { schema: { tags, summary: 'Retrieve an automation with its steps and connections', params: Params } },
    async (req) => {
      return automationGet(deps.pool, team(req), req.params.id);
    },
  );
  app.patch(
    '/automations/:id',
    {
      schema: {
        tags,
        summary: 'Update an automation (name/status, or steps and connections together)',
        params: Params,
        body: Body,
      },
    },
    async (req) => {
      return automationChange(deps.pool, team(req), req.params.id, req.body ?? {}, actorOf(req));
    },
  );
  app.delete(
    '/automations/:id',
    { schema: { tags, summary: 'Delete an automation and its runs', params: Params } },
    async (req) => {
      return automationRemove(deps.pool, team(req), req.params.id);
    },
  );
  app.post(
    '/automations/:id/duplicate',
    { schema: { tags, summary: 'Duplicate an automation (the copy is disabled)', params: Params } },
    async (req, reply) => {
      return reply.status(201).send(await automationDuplicate(deps.pool, team(req), req.params.id));
    },
  );
  app.post(
    '/automations/:id/stop',
    { schema: { tags, summary: 'Disable an automation and cancel its running runs', params: Params } },
    async (req) => {
      return automationStop(deps.pool, team(req), req.params.id, actorOf(req));
    },
  );
  app.get(
    '/automations/:id/runs',
    { schema: { tags, summary: "List an automation's runs", params: Params, querystring: ListQuery } },
    async (req) => {
      return automationRuns(deps.pool, team(req), req.params.id, parsePage(req.query, false), req.query.status);
    },
  );
  app.get(
    '/automations/:id/counts',
    {
      schema: {
        tags,
        summary:
          'Per step: runs that reached it, wait at it, exited or failed there; emails sent, delivered, opened, clicked (Mailroom extension)',
        params: Params,
      },
    },
    async (req) => {
      return automationCounts(deps.pool, team(req), req.params.id);
    },
  );
  app.get(
    '/automations/:id/runs/:run_id',
    { schema: { tags, summary: 'Retrieve a run with its steps', params: RunParams } },
    async (req) => {
      return automationRunGet(deps.pool, team(req), req.params.id, req.params.run_id);
    },
  );
}
