// /topics (resend-compat 7.3): the team's topics. One file for the resource: its endpoints are
// small and alike. default_subscription is fixed at creation.
import { Type } from 'typebox';
import { topicChange, topicCreate, topicGet, topicRemove, topicsList } from '../../contacts/topics.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Topics'];
const Id = Type.Object({ id: Type.String() });
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Body = Type.Object(
  {
    name: field('up to 50 characters'),
    description: field('up to 200 characters'),
    default_subscription: field('"opt_in" or "opt_out"; fixed at creation'),
    visibility: field('"public" or "private" (default)'),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post('/topics', { schema: { tags, summary: 'Create a topic', body: Body } }, async (req, reply) => {
    return reply.status(201).send(await topicCreate(deps.pool, authOf(req).team_id, req.body ?? {}));
  });
  app.get('/topics', { schema: { tags, summary: 'List topics', querystring: PageQuerySchema } }, async (req) => {
    return topicsList(deps.pool, authOf(req).team_id, parsePage(req.query, false));
  });
  app.get('/topics/:id', { schema: { tags, summary: 'Retrieve a topic', params: Id } }, async (req) => {
    return topicGet(deps.pool, authOf(req).team_id, req.params.id);
  });
  app.patch(
    '/topics/:id',
    { schema: { tags, summary: 'Update a topic (name, description, visibility)', params: Id, body: Body } },
    async (req) => {
      return topicChange(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.delete('/topics/:id', { schema: { tags, summary: 'Delete a topic', params: Id } }, async (req) => {
    return topicRemove(deps.pool, authOf(req).team_id, req.params.id);
  });
}
