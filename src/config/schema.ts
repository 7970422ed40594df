// Every setting Mailroom reads, declared once: env name, type, default, description.
// Names are stable (DESIGN.md section 6); tests and operators depend on them. No module reads
// process.env: load.ts turns this schema into a frozen Config. The parsers are in parsers.ts.
import os from 'node:os';
import {
  type Parser,
  type RegionEgress,
  bool,
  cidrList,
  dnsServers,
  durations,
  hostPort,
  hostPortList,
  int,
  ipList,
  listOf,
  oneOf,
  optStr,
  optUrl,
  rate,
  regionEgress,
  smtpListeners,
  str,
  trustProxy,
  url,
  zoneList,
} from './parsers.js';

import { REGIONS, ROLES, type Region, type Role } from './roles.js';

export { REGIONS, ROLES, type Region, type Role };
export { str, hostPort, type HostPort, type SmtpListener, type RegionEgress } from './parsers.js';

export interface Setting<T> {
  env: string;
  description: string;
  default: T | (() => T);
  parse: Parser<T>;
  secret?: boolean;
}

const def = <T>(s: Setting<T>): Setting<T> => s;

export const schema = {
  databaseUrl: def({
    env: 'MAILROOM_DATABASE_URL',
    description: 'PostgreSQL connection string; unset = embedded PostgreSQL under the data directory',
    default: undefined,
    parse: optUrl(['postgres:', 'postgresql:']),
    secret: true,
  }),
  databaseDirectUrl: def({
    env: 'MAILROOM_DATABASE_DIRECT_URL',
    description:
      "PostgreSQL itself, when MAILROOM_DATABASE_URL is a connection pooler in transaction mode (PgBouncer): migrations and the workers' LISTEN use it, everything else the pooler; unset = MAILROOM_DATABASE_URL for everything",
    default: undefined,
    parse: optUrl(['postgres:', 'postgresql:']),
    secret: true,
  }),
  databasePoolSize: def({
    env: 'MAILROOM_DATABASE_POOL_SIZE',
    description:
      'pooled PostgreSQL connections per process at most; a worker process also holds one LISTEN connection, shared by its job workers',
    default: 20,
    parse: int(1, 1000),
  }),
  dataDir: def({
    env: 'MAILROOM_DATA_DIR',
    description: 'embedded database, generated secrets, TLS certificate',
    default: './data',
    parse: str,
  }),
  httpListen: def({
    env: 'MAILROOM_HTTP_LISTEN',
    description: 'API and dashboard listen address',
    default: hostPort('127.0.0.1:3000'),
    parse: hostPort,
  }),
  trustProxy: def({
    env: 'MAILROOM_TRUST_PROXY',
    description:
      'reverse proxies in front of the API and dashboard whose X-Forwarded-For names the client: their addresses/CIDR blocks, comma separated, or true for any peer (only when nothing else can reach the port); false = the peer address is the client, so every user behind a proxy shares one sign-in and rate-limit address',
    default: false as boolean | string[],
    parse: trustProxy,
  }),
  publicUrl: def({
    env: 'MAILROOM_PUBLIC_URL',
    description: 'base of tracking, unsubscribe and dashboard links',
    default: 'http://localhost:3000',
    parse: url(['http:', 'https:']),
  }),
  smtpListen: def({
    env: 'MAILROOM_SMTP_LISTEN',
    description: 'SMTP submission listeners, [host:]port:starttls|tls, comma separated',
    default: smtpListeners('127.0.0.1:2587:starttls,127.0.0.1:2465:tls'),
    parse: smtpListeners,
  }),
  smtpMaxSize: def({
    env: 'MAILROOM_SMTP_MAX_SIZE',
    description: 'largest message accepted over SMTP, bytes',
    default: 40 * 1024 * 1024,
    parse: int(1024, 200 * 1024 * 1024),
  }),
  smtpMaxConnectionsPerIp: def({
    env: 'MAILROOM_SMTP_MAX_CONNECTIONS_PER_IP',
    description: 'concurrent SMTP submission connections allowed from one client address',
    default: 50,
    parse: int(1, 100_000),
  }),
  smtpTrustedNetworks: def({
    env: 'MAILROOM_SMTP_TRUSTED_NETWORKS',
    description:
      'client addresses/CIDR blocks allowed to submit WITHOUT TLS or AUTH, as the key in MAILROOM_SMTP_TRUSTED_API_KEY (benchmarks, a trusted relay); empty = none',
    default: [] as string[],
    parse: cidrList,
  }),
  smtpTrustedApiKey: def({
    env: 'MAILROOM_SMTP_TRUSTED_API_KEY',
    description: 'API key whose team and permissions apply to mail from MAILROOM_SMTP_TRUSTED_NETWORKS',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  mxListen: def({
    env: 'MAILROOM_MX_LISTEN',
    description: 'inbound MX listener addresses',
    default: hostPortList('127.0.0.1:2525'),
    parse: hostPortList,
  }),
  smtpDataTimeoutMs: def({
    env: 'MAILROOM_SMTP_DATA_TIMEOUT_MS',
    description:
      'longest time a client may take to send one message (DATA), submission and MX listeners, ms (421 4.4.2 after it)',
    default: 10 * 60_000,
    parse: int(1000, 3_600_000),
  }),
  shutdownTimeoutMs: def({
    env: 'MAILROOM_SHUTDOWN_TIMEOUT_MS',
    description:
      'on SIGTERM, longest wait for in-flight work (SMTP DATA, HTTP requests, running jobs), ms; jobs still running then are given back to the queue',
    default: 30_000,
    parse: int(1000, 600_000),
  }),
  mxMaxSize: def({
    env: 'MAILROOM_MX_MAX_SIZE',
    description: 'largest message accepted by the inbound MX listener, bytes',
    default: 40 * 1024 * 1024,
    parse: int(1024, 200 * 1024 * 1024),
  }),
  mxMaxConnectionsPerIp: def({
    env: 'MAILROOM_MX_MAX_CONNECTIONS_PER_IP',
    description: 'concurrent inbound MX connections allowed from one client address (beyond: 421)',
    default: 20,
    parse: int(1, 100_000),
  }),
  mxRateLimit: def({
    env: 'MAILROOM_MX_RATE_LIMIT',
    description: 'messages per minute the inbound MX listener accepts from one client address (beyond: 451 4.7.1)',
    default: 600,
    parse: int(1, 10_000_000),
  }),
  metricsToken: def({
    env: 'MAILROOM_METRICS_TOKEN',
    description: 'bearer token that GET /metrics (Prometheus) requires; unset = the endpoint is off',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  mxDnsCacheSeconds: def({
    env: 'MAILROOM_MX_DNS_CACHE_SECONDS',
    description: 'seconds the inbound MX keeps DNS answers for SPF/DKIM/DMARC checks (0 = ask the resolver every time)',
    default: 60,
    parse: int(0, 86_400),
  }),
  mxHost: def({
    env: 'MAILROOM_MX_HOST',
    description: 'public host name of this service (MX target of return-path and receiving records, SPF a: mechanism)',
    default: () => os.hostname(),
    parse: str,
  }),
  tlsCert: def({
    env: 'MAILROOM_TLS_CERT',
    description: 'PEM certificate file for SMTP; unset = self-signed, generated into the data directory',
    default: undefined,
    parse: optStr,
  }),
  tlsKey: def({
    env: 'MAILROOM_TLS_KEY',
    description: 'PEM private key file for SMTP',
    default: undefined,
    parse: optStr,
  }),
  dnsServers: def({
    env: 'MAILROOM_DNS_SERVERS',
    description: 'host[:port] list used for MX lookups and domain verification; unset = system resolver',
    default: [] as string[],
    parse: dnsServers,
  }),
  deliveryMode: def({
    env: 'MAILROOM_DELIVERY_MODE',
    description: 'mx (direct), relay, or capture (nothing leaves the machine)',
    default: 'mx' as 'mx' | 'relay' | 'capture',
    parse: oneOf(['mx', 'relay', 'capture'] as const),
  }),
  relayUrl: def({
    env: 'MAILROOM_RELAY_URL',
    description: 'smtp[s]://user:pass@host:port for relay mode',
    default: undefined,
    parse: optUrl(['smtp:', 'smtps:']),
    secret: true,
  }),
  outboundPort: def({
    env: 'MAILROOM_OUTBOUND_PORT',
    description: 'destination port for MX delivery',
    default: 25,
    parse: int(1, 65535),
  }),
  outboundAddresses: def({
    env: 'MAILROOM_OUTBOUND_ADDRESSES',
    description:
      "public IP addresses outbound mail leaves from, comma separated, for the reverse-DNS and blocklist checks of GET /domains/:id/health (a region's sourceAddress in MAILROOM_REGION_EGRESS takes its place for that region); empty = not checked",
    default: [] as string[],
    parse: ipList,
  }),
  dnsblZones: def({
    env: 'MAILROOM_DNSBL_ZONES',
    description:
      'DNS blocklist zones queried for the outbound addresses by domain health (through MAILROOM_DNS_SERVERS); none = no queries',
    default: ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org'],
    parse: zoneList,
  }),
  domainDnsblZones: def({
    env: 'MAILROOM_DOMAIN_DNSBL_ZONES',
    description: 'domain blocklist zones queried for the sending domain by domain health; none = no queries',
    default: ['dbl.spamhaus.org', 'multi.surbl.org'],
    parse: zoneList,
  }),
  heloName: def({
    env: 'MAILROOM_HELO_NAME',
    description: 'EHLO name for outbound SMTP',
    default: () => os.hostname(),
    parse: str,
  }),
  bootstrapApiKey: def({
    env: 'MAILROOM_BOOTSTRAP_API_KEY',
    description: 'a full-access key for the default team, created at start if absent',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  rateLimit: def({
    env: 'MAILROOM_RATE_LIMIT',
    description: 'API requests per second per team',
    default: 10,
    parse: int(1, 1_000_000),
  }),
  unsubscribeRateLimit: def({
    env: 'MAILROOM_UNSUBSCRIBE_RATE_LIMIT',
    description:
      'requests per second one client address may make to the public unsubscribe links (/u/...) and preference page (beyond: 429)',
    default: 10,
    parse: int(1, 1_000_000),
  }),
  domainClaimGraceSeconds: def({
    env: 'MAILROOM_DOMAIN_CLAIM_GRACE_SECONDS',
    description:
      'seconds a verified domain claim waits before the domain moves to the claiming team (its holder is told at verification); 0 = it moves at verification',
    default: 0,
    parse: int(0, 30 * 86_400),
  }),
  shareMaxHours: def({
    env: 'MAILROOM_SHARE_MAX_HOURS',
    description:
      'longest expiry of a share link (POST /emails/:id/share), in hours; 48 as in Resend, and the default expiry is 48 hours or this if shorter',
    default: 48,
    parse: int(1, 8760),
  }),
  recipientRateLimit: def({
    env: 'MAILROOM_RECIPIENT_RATE_LIMIT',
    description:
      'recipients (to+cc+bcc) per second per team, API and SMTP together; at least one full batch (100 x 50)',
    default: 5000,
    parse: int(1, 100_000_000),
  }),
  broadcastPageSize: def({
    env: 'MAILROOM_BROADCAST_PAGE_SIZE',
    description: 'contacts a broadcast expands into emails per transaction (the cursor advances with each page)',
    default: 500,
    parse: int(1, 10_000),
  }),
  broadcastQueueWindow: def({
    env: 'MAILROOM_BROADCAST_QUEUE_WINDOW',
    description:
      'emails of a broadcast no delivery has taken yet, at once; its expansion waits beyond it, so transactional mail never queues behind a whole broadcast',
    default: 1000,
    parse: int(1, 1_000_000),
  }),
  broadcastPauseComplaintRate: def({
    env: 'MAILROOM_BROADCAST_PAUSE_COMPLAINT_RATE',
    description:
      'a sending broadcast pauses itself when complaints / (delivered + bounced) of its emails pass this (0.003 = 0.3%)',
    default: 0.003,
    parse: rate,
  }),
  broadcastPauseBounceRate: def({
    env: 'MAILROOM_BROADCAST_PAUSE_BOUNCE_RATE',
    description:
      'a sending broadcast pauses itself when permanent bounces / (delivered + bounced) of its emails pass this (0.05 = 5%)',
    default: 0.05,
    parse: rate,
  }),
  broadcastPauseMinSample: def({
    env: 'MAILROOM_BROADCAST_PAUSE_MIN_SAMPLE',
    description: 'delivered + bounced emails a broadcast needs before the automatic pause rates apply',
    default: 100,
    parse: int(1, 10_000_000),
  }),
  insights: def({
    env: 'MAILROOM_INSIGHTS',
    description:
      'compute deliverability insights for every email, off the request path: at its first delivery attempt or first GET /emails/:id/insights (GET /emails/:id/insights); false = skip them',
    default: true,
    parse: bool,
  }),
  reputationGuard: def({
    env: 'MAILROOM_REPUTATION_GUARD',
    description:
      'the reputation guard: per sending domain, warn and then pause list mail (broadcasts, automations) when its hard-bounce or complaint rate passes the thresholds',
    default: true,
    parse: bool,
  }),
  reputationComplaintWarn: def({
    env: 'MAILROOM_REPUTATION_COMPLAINT_WARN',
    description:
      'a domain\'s complaint rate (complaints / (delivered + bounced)) over the last hour or 7 days that puts it in warning (0.001 = 0.1%, Gmail and Yahoo\'s "stay below")',
    default: 0.001,
    parse: rate,
  }),
  reputationComplaintAct: def({
    env: 'MAILROOM_REPUTATION_COMPLAINT_ACT',
    description:
      "the complaint rate that pauses the domain's list mail until a person resumes it (0.003 = 0.3%, Gmail and Yahoo's limit)",
    default: 0.003,
    parse: rate,
  }),
  reputationBounceWarn: def({
    env: 'MAILROOM_REPUTATION_BOUNCE_WARN',
    description:
      "a domain's hard-bounce rate (permanent bounces / (delivered + bounced)) that puts it in warning (0.02 = 2%)",
    default: 0.02,
    parse: rate,
  }),
  reputationBounceAct: def({
    env: 'MAILROOM_REPUTATION_BOUNCE_ACT',
    description: "the hard-bounce rate that pauses the domain's list mail until a person resumes it (0.05 = 5%)",
    default: 0.05,
    parse: rate,
  }),
  reputationMinSample: def({
    env: 'MAILROOM_REPUTATION_MIN_SAMPLE',
    description:
      'delivered + bounced recipients a window (last hour, last 7 days) needs before the guard judges its rates',
    default: 100,
    parse: int(1, 10_000_000),
  }),
  reputationPauseTransactional: def({
    env: 'MAILROOM_REPUTATION_PAUSE_TRANSACTIONAL',
    description:
      'a paused domain also refuses API and SMTP sends (403 / 451 4.7.1); by default transactional mail keeps flowing',
    default: false,
    parse: bool,
  }),
  agentModelUrl: def({
    env: 'MAILROOM_AGENT_MODEL_URL',
    description:
      "the inbox agent's model: an OpenAI-compatible chat-completions base URL (POST <url>/chat/completions); unset = the agent does nothing",
    default: undefined,
    parse: optUrl(['http:', 'https:']),
  }),
  agentModelKey: def({
    env: 'MAILROOM_AGENT_MODEL_KEY',
    description: "the inbox agent's model API key (sent as a Bearer token); unset = none sent",
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  agentModel: def({
    env: 'MAILROOM_AGENT_MODEL',
    description: "the inbox agent's model name (the request's `model`)",
    default: undefined,
    parse: optStr,
  }),
  allowPrivateNetworks: def({
    env: 'MAILROOM_ALLOW_PRIVATE_NETWORKS',
    description: 'allow webhook and attachment URLs on private addresses',
    default: false,
    parse: bool,
  }),
  webhookRetrySchedule: def({
    env: 'MAILROOM_WEBHOOK_RETRY_SCHEDULE',
    description:
      'webhook attempt delays, each after the previous failure (first = first attempt), e.g. 0s,5s,5m,30m,2h,5h,10h,10h',
    default: durations('0s,5s,5m,30m,2h,5h,10h,10h'),
    parse: durations,
  }),
  webhookTimeoutMs: def({
    env: 'MAILROOM_WEBHOOK_TIMEOUT_MS',
    description: 'time a webhook endpoint has to answer, milliseconds',
    default: 15_000,
    parse: int(100, 120_000),
  }),
  webhookConcurrency: def({
    env: 'MAILROOM_WEBHOOK_CONCURRENCY',
    description: 'webhook requests in flight per endpoint at most',
    default: 16,
    parse: int(1, 256),
  }),
  secretKey: def({
    env: 'MAILROOM_SECRET_KEY',
    description: 'encryption and signing key; unset = generated into the data directory',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  redisUrl: def({
    env: 'MAILROOM_REDIS_URL',
    description: 'Redis for rate-limit counters shared across processes',
    default: undefined,
    parse: optUrl(['redis:', 'rediss:']),
    secret: true,
  }),
  roles: def({
    env: 'MAILROOM_ROLES',
    description: 'roles this process runs: api, smtp, mx, worker',
    default: [...ROLES] as Role[],
    parse: listOf(ROLES),
  }),
  regionEgress: def({
    env: 'MAILROOM_REGION_EGRESS',
    description:
      'per-region egress as JSON: {"eu-west-1":{"relayUrl","heloName","sourceAddress"}}; unset keys use the global settings',
    default: {} as Partial<Record<Region, RegionEgress>>,
    parse: regionEgress,
    secret: true,
  }),
  regions: def({
    env: 'MAILROOM_REGIONS',
    description: 'regions whose deliveries this worker claims',
    default: [...REGIONS] as Region[],
    parse: listOf(REGIONS),
  }),
  retentionDays: def({
    env: 'MAILROOM_RETENTION_DAYS',
    description: 'days raw message bodies are kept',
    default: 30,
    parse: int(1, 3650),
  }),
  logRetentionDays: def({
    env: 'MAILROOM_LOG_RETENTION_DAYS',
    description: 'days API request logs are kept',
    default: 30,
    parse: int(1, 3650),
  }),
  privacyExportMaxBytes: def({
    env: 'MAILROOM_PRIVACY_EXPORT_MAX_BYTES',
    description:
      'most content (attachments and document, before compression) a data-subject export zip holds; past it the export fails with a message',
    default: 512 * 1024 * 1024,
    parse: int(1024, 4 * 1024 * 1024 * 1024 - 1),
  }),
  logLevel: def({
    env: 'MAILROOM_LOG_LEVEL',
    description: 'structured log level: debug, info, warn, error, silent',
    default: 'info' as 'debug' | 'info' | 'warn' | 'error' | 'silent',
    parse: oneOf(['debug', 'info', 'warn', 'error', 'silent'] as const),
  }),
  dashboardFrom: def({
    env: 'MAILROOM_DASHBOARD_FROM',
    description:
      'sender of dashboard mail (password resets), e.g. "Mailroom <no-reply@example.com>", on a verified domain; unset = no reset by email',
    default: undefined,
    parse: optStr,
  }),
  githubClientId: def({
    env: 'MAILROOM_GITHUB_CLIENT_ID',
    description: 'GitHub OAuth app client id: enables "Sign in with GitHub" (with the secret)',
    default: undefined,
    parse: optStr,
  }),
  githubClientSecret: def({
    env: 'MAILROOM_GITHUB_CLIENT_SECRET',
    description: 'GitHub OAuth app client secret',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  githubOauthUrl: def({
    env: 'MAILROOM_GITHUB_OAUTH_URL',
    description:
      'GitHub base for /login/oauth/authorize and /login/oauth/access_token (tests point it at a fake provider)',
    default: 'https://github.com',
    parse: url(['http:', 'https:']),
  }),
  githubApiUrl: def({
    env: 'MAILROOM_GITHUB_API_URL',
    description: 'GitHub API base for /user and /user/emails',
    default: 'https://api.github.com',
    parse: url(['http:', 'https:']),
  }),
  googleClientId: def({
    env: 'MAILROOM_GOOGLE_CLIENT_ID',
    description: 'Google OAuth client id: enables "Sign in with Google" (with the secret)',
    default: undefined,
    parse: optStr,
  }),
  googleClientSecret: def({
    env: 'MAILROOM_GOOGLE_CLIENT_SECRET',
    description: 'Google OAuth client secret',
    default: undefined,
    parse: optStr,
    secret: true,
  }),
  googleAuthUrl: def({
    env: 'MAILROOM_GOOGLE_AUTH_URL',
    description: 'Google authorization endpoint',
    default: 'https://accounts.google.com/o/oauth2/v2/auth',
    parse: url(['http:', 'https:']),
  }),
  googleTokenUrl: def({
    env: 'MAILROOM_GOOGLE_TOKEN_URL',
    description: 'Google token endpoint',
    default: 'https://oauth2.googleapis.com/token',
    parse: url(['http:', 'https:']),
  }),
  googleUserinfoUrl: def({
    env: 'MAILROOM_GOOGLE_USERINFO_URL',
    description: 'Google OpenID Connect userinfo endpoint',
    default: 'https://openidconnect.googleapis.com/v1/userinfo',
    parse: url(['http:', 'https:']),
  }),
};

export type Schema = typeof schema;
export type Config = { readonly [K in keyof Schema]: Schema[K] extends Setting<infer T> ? T : never };
