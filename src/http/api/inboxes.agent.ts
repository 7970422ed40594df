// /inboxes/:inbox/agent: the inbox agent's settings (inboxes/agent.ts); the run is inboxes/agent-run.ts.
import { agentChange, agentGet } from '../../inboxes/agent.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { INBOX_BODY_LIMIT, InboxParam, OpenBody, tags } from './inboxes.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const configured = () => Boolean(deps.config.agentModelUrl && deps.config.agentModel);
  app.get(
    '/inboxes/:inbox/agent',
    { schema: { tags, summary: "Retrieve an inbox's agent settings", params: InboxParam } },
    async (req) => agentGet(deps.pool, authOf(req).team_id, req.params.inbox, configured()),
  );
  app.patch(
    '/inboxes/:inbox/agent',
    {
      bodyLimit: INBOX_BODY_LIMIT,
      schema: { tags, summary: "Update an inbox's agent settings", params: InboxParam, body: OpenBody },
    },
    async (req) => agentChange(deps.pool, authOf(req).team_id, req.params.inbox, req.body ?? {}),
  );
}
