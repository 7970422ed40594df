// Helpers shared by the dashboard-only endpoints: the sign-in service (absent = 404), cookies,
// no caching, and loose body schemas (fields checked by the services, with their own messages).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../../errors.js';
import type { DashboardAuth } from '../../dashboard-auth/index.js';
import type { ApiDeps } from '../types.js';

export const PUBLIC = { public: true } as const;
export const TAGS = ['Dashboard'];

export function dash(deps: ApiDeps): DashboardAuth {
  if (!deps.dashboard) throw new AppError('not_found');
  return deps.dashboard;
}

/** A dashboard route's options: public to the API hooks (its own session check), no-store, hidden from the API docs; `extra` may add TypeBox body/params/querystring, which then type the handler. */
export function routeOpts<S extends object = object>(summary: string, extra?: S) {
  return { config: PUBLIC, onRequest: noStore, schema: { tags: TAGS, summary, hide: true, ...(extra as S) } };
}

export function body<T extends Record<string, TSchema>>(props: T) {
  return Type.Object(props, { additionalProperties: true });
}

export function setCookies(reply: FastifyReply, cookies: string[]): void {
  reply.header('set-cookie', cookies);
}

export function noStore(_req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('cache-control', 'no-store');
  done();
}
