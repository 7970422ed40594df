// What the HTTP layer adds to Fastify's request and route config, and the services it is given.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config/schema.js';
import type { Logger } from '../lib/log.js';
import type { Pool } from '../store/db.js';
import type { ApiKeys, TokenAuth } from '../auth/api-keys.js';
import type { ApiKeyAuth } from '../store/api-keys.js';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter.js';
import type { RequestLogRecorder } from '../request-logs/recorder.js';
import type { Domains } from '../domains/service.js';
import type { EmailSender } from '../emails/send.js';
import type { DeferredBodies } from '../delivery/deferred.js';
import type { ComposeInsights } from '../insights/compose-insights.js';
import type { Broadcasts } from '../broadcasts/service.js';
import type { ReputationGuard } from '../reputation/guard.js';
import type { Webhooks } from '../webhooks/service.js';
import type { WebhookLog } from '../webhooks/message-log.js';
import type { TrackingSigner } from '../tracking/tokens.js';
import type { TrackingRecorder } from '../tracking/recorder.js';
import type { DownloadLinks } from '../inbound/download-links.js';
import type { DashboardAuth } from '../dashboard-auth/index.js';
import type { Unsubscribes } from '../contacts/unsubscribe.js';
import type { SessionRequestAuth } from '../dashboard-auth/sessions.js';
import type { OAuthServer } from '../oauth/index.js';
import type { PrivacyRequests } from '../privacy/service.js';
import type { TeamRetentionSettings } from '../privacy/retention.js';

/** The Fastify instance routes register on: request parts are typed from their TypeBox schemas. */
export type ApiApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface ApiDeps {
  config: Config;
  log: Logger;
  pool: Pool;
  apiKeys: ApiKeys;
  limiter: RateLimiter;
  recorder: RequestLogRecorder;
  domains: Domains;
  sender: EmailSender;
  /** renders the bodies of emails that keep none (a broadcast's: delivery/deferred.ts) */
  bodies: DeferredBodies;
  /** the compose findings of stored emails (GET /emails/:id/insights) */
  insights: ComposeInsights;
  broadcasts: Broadcasts;
  reputationGuard: ReputationGuard;
  webhooks: Webhooks;
  webhookLog: WebhookLog;
  tracking: { signer: TrackingSigner; recorder: TrackingRecorder };
  /** the signed unsubscribe links of list mail (/u/<token>) and their per-address limiter */
  unsubscribe: { service: Unsubscribes; limiter: RateLimiter };
  /** signed download links of received mail */
  downloads: DownloadLinks;
  /** Mailroom as an OAuth 2.0 authorization server: clients, consent, tokens, grants */
  oauth: OAuthServer;
  /** data-subject requests (erasures, exports) and per-team retention */
  privacy: { requests: PrivacyRequests; retention: TeamRetentionSettings };
  isReady: () => Promise<boolean>;
  /** dashboard sign-in; when present, a session cookie authenticates API requests too */
  dashboard?: DashboardAuth;
}

/** An API key, an OAuth access token, or a dashboard session acting for its current team (id null: no key). */
export type RequestAuth = TokenAuth | SessionRequestAuth;

declare module 'fastify' {
  interface FastifyRequest {
    auth?: RequestAuth;
    rate?: RateDecision;
    responsePayload?: string;
  }
  interface FastifyContextConfig {
    /** no API key, no rate limit, not in the request log (health, docs, dashboard, tracking) */
    public?: boolean;
    /** reachable with a sending_access key (the send endpoints) */
    sending?: boolean;
    /** the request body is not kept in the request log (it names a data subject: privacy/) */
    unloggedBody?: boolean;
  }
}

/** The authenticated key of a request that passed the auth hook. */
export function authOf(req: { auth?: RequestAuth }): RequestAuth {
  if (!req.auth) throw new Error('route reached without authentication');
  return req.auth;
}
