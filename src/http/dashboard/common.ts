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
