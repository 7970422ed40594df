// GET /dashboard-api/api-keys → {object: "list", data: [{id, name, created_at, last_used_at,
// permission, domain_id, domain_name, token_hint}]}: the dashboard's key table. GET /api-keys
// keeps Resend's shape; this adds what people tell keys apart by.
import type { ApiApp, ApiDeps } from '../types.js';
import { authOf } from '../types.js';
import { TAGS } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/dashboard-api/api-keys',
    { schema: { tags: TAGS, summary: 'API keys with permission, domain and token prefix', hide: true } },
    async (req) => {
      return { object: 'list' as const, has_more: false, data: await deps.apiKeys.listDetailed(authOf(req).team_id) };
    },
  );
}
