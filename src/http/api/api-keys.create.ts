// POST /api-keys → 201 {id, object: "list" (sic, as on Resend's wire), token}. Token shown once.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { domainFindById } from '../../store/domains.js';
import { authOf, type ApiDeps } from '../types.js';

const Body = Type.Object({
  name: Type.String({ maxLength: 50 }),
  permission: Type.Optional(Type.String()),
  domain_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, { additionalProperties: true });

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/api-keys', { schema: { tags: ['API keys'], summary: 'Create an API key', body: Body } }, async (req, reply) => {
    const { team_id } = authOf(req);
    const body = req.body as { name: string; permission?: string; domain_id?: string | null };
    const permission = body.permission ?? 'full_access';
    if (permission !== 'full_access' && permission !== 'sending_access') throw new AppError('invalid_access');
    let domainId: string | null = null;
    if (body.domain_id) {
      if (permission !== 'sending_access') throw new AppError('validation_error', 'Invalid `domain_id` field: a domain can only be set on a "sending_access" key.');
      if (!isUuid(body.domain_id) || !(await domainFindById(deps.pool, team_id, body.domain_id))) throw new AppError('not_found', 'Domain not found');
      domainId = body.domain_id;
    }
    const key = await deps.apiKeys.create(team_id, { name: body.name, permission, domainId });
    return reply.status(201).send({ id: key.id, object: 'list', token: key.token });
  });
}
