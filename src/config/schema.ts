// Every setting Mailroom reads, declared once: env name, type, default, description.
// Names are stable (DESIGN.md section 6); tests and operators depend on them. No module reads
// process.env: load.ts turns this schema into a frozen Config.
import os from 'node:os';

export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type Region = (typeof REGIONS)[number];
export const ROLES = ['api', 'smtp', 'mx', 'worker'] as const;
export type Role = (typeof ROLES)[number];

type Parser<T> = (raw: string) => T;

export interface Setting<T> {
  env: string;
  description: string;
  default: T | (() => T);
  parse: Parser<T>;
  secret?: boolean;
}

const fail = (msg: string): never => {
  throw new Error(msg);
};

export const str: Parser<string> = (raw) => raw;
const optStr: Parser<string | undefined> = (raw) => (raw === '' ? undefined : raw);
const int = (min: number, max: number): Parser<number> => (raw) => {
  if (!/^-?\d+$/.test(raw.trim())) fail(`must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) fail(`must be between ${min} and ${max}, got ${n}`);
  return n;
};
const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return fail(`must be true or false, got "${raw}"`);
};
const oneOf = <T extends string>(values: readonly T[]): Parser<T> => (raw) =>
  (values as readonly string[]).includes(raw) ? (raw as T) : fail(`must be one of ${values.join(', ')}, got "${raw}"`);
const listOf = <T extends string>(values: readonly T[]): Parser<T[]> => (raw) =>
  raw.split(',').map((s) => s.trim()).filter(Boolean).map(oneOf(values));
const url = (protocols: string[]): Parser<string> => (raw) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return fail(`must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(u.protocol)) fail(`must use ${protocols.join(' or ')}, got "${u.protocol}"`);
  return raw.replace(/\/+$/, '');
};
const optUrl = (protocols: string[]): Parser<string | undefined> => (raw) => (raw === '' ? undefined : url(protocols)(raw));

export interface HostPort {
  host: string;
  port: number;
}
export const hostPort: Parser<HostPort> = (raw) => {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(raw.trim());
  if (!m) return fail(`must be host:port, got "${raw}"`);
  const port = Number(m[3]);
  if (port > 65535) fail(`port out of range in "${raw}"`);
  return { host: m[1] ?? m[2], port };
};

export interface SmtpListener extends HostPort {
  security: 'starttls' | 'tls';
}
const smtpListeners: Parser<SmtpListener[]> = (raw) =>
  raw.split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const m = /^(?:(.+):)?(\d{1,5}):(starttls|tls)$/.exec(item);
    if (!m) return fail(`each listener must be [host:]port:starttls|tls, got "${item}"`);
    const host = (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, '');
    const port = Number(m[2]);
    if (port > 65535) fail(`port out of range in "${item}"`);
    return { host, port, security: m[3] as 'starttls' | 'tls' };
  });
const hostPortList: Parser<HostPort[]> = (raw) => raw.split(',').map((s) => s.trim()).filter(Boolean).map(hostPort);
const dnsServers: Parser<string[]> = (raw) =>
  raw.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    if (!/^(\[[0-9a-fA-F:]+\]|[0-9.]+|[0-9a-fA-F:]+)(:\d{1,5})?$/.test(s)) fail(`each DNS server must be an IP address with an optional :port, got "${s}"`);
    return s;
  });

const def = <T>(s: Setting<T>): Setting<T> => s;

export const schema = {
  databaseUrl: def({ env: 'MAILROOM_DATABASE_URL', description: 'PostgreSQL connection string; unset = embedded PostgreSQL under the data directory', default: undefined, parse: optUrl(['postgres:', 'postgresql:']), secret: true }),
  dataDir: def({ env: 'MAILROOM_DATA_DIR', description: 'embedded database, generated secrets, TLS certificate', default: './data', parse: str }),
  httpListen: def({ env: 'MAILROOM_HTTP_LISTEN', description: 'API and dashboard listen address', default: hostPort('127.0.0.1:3000'), parse: hostPort }),
  publicUrl: def({ env: 'MAILROOM_PUBLIC_URL', description: 'base of tracking, unsubscribe and dashboard links', default: 'http://localhost:3000', parse: url(['http:', 'https:']) }),
  smtpListen: def({ env: 'MAILROOM_SMTP_LISTEN', description: 'SMTP submission listeners, [host:]port:starttls|tls, comma separated', default: smtpListeners('127.0.0.1:2587:starttls,127.0.0.1:2465:tls'), parse: smtpListeners }),
  smtpMaxSize: def({ env: 'MAILROOM_SMTP_MAX_SIZE', description: 'largest message accepted over SMTP, bytes', default: 40 * 1024 * 1024, parse: int(1024, 200 * 1024 * 1024) }),
  mxListen: def({ env: 'MAILROOM_MX_LISTEN', description: 'inbound MX listener addresses', default: hostPortList('127.0.0.1:2525'), parse: hostPortList }),
  mxHost: def({ env: 'MAILROOM_MX_HOST', description: 'public host name of this service (MX target of return-path and receiving records, SPF a: mechanism)', default: () => os.hostname(), parse: str }),
  tlsCert: def({ env: 'MAILROOM_TLS_CERT', description: 'PEM certificate file for SMTP; unset = self-signed, generated into the data directory', default: undefined, parse: optStr }),
  tlsKey: def({ env: 'MAILROOM_TLS_KEY', description: 'PEM private key file for SMTP', default: undefined, parse: optStr }),
  dnsServers: def({ env: 'MAILROOM_DNS_SERVERS', description: 'host[:port] list used for MX lookups and domain verification; unset = system resolver', default: [] as string[], parse: dnsServers }),
  deliveryMode: def({ env: 'MAILROOM_DELIVERY_MODE', description: 'mx (direct), relay, or capture (nothing leaves the machine)', default: 'mx' as 'mx' | 'relay' | 'capture', parse: oneOf(['mx', 'relay', 'capture'] as const) }),
  relayUrl: def({ env: 'MAILROOM_RELAY_URL', description: 'smtp[s]://user:pass@host:port for relay mode', default: undefined, parse: optUrl(['smtp:', 'smtps:']), secret: true }),
  outboundPort: def({ env: 'MAILROOM_OUTBOUND_PORT', description: 'destination port for MX delivery', default: 25, parse: int(1, 65535) }),
  heloName: def({ env: 'MAILROOM_HELO_NAME', description: 'EHLO name for outbound SMTP', default: () => os.hostname(), parse: str }),
  bootstrapApiKey: def({ env: 'MAILROOM_BOOTSTRAP_API_KEY', description: 'a full-access key for the default team, created at start if absent', default: undefined, parse: optStr, secret: true }),
  rateLimit: def({ env: 'MAILROOM_RATE_LIMIT', description: 'API requests per second per team', default: 10, parse: int(1, 1_000_000) }),
  allowPrivateNetworks: def({ env: 'MAILROOM_ALLOW_PRIVATE_NETWORKS', description: 'allow webhook and attachment URLs on private addresses', default: false, parse: bool }),
  secretKey: def({ env: 'MAILROOM_SECRET_KEY', description: 'encryption and signing key; unset = generated into the data directory', default: undefined, parse: optStr, secret: true }),
  redisUrl: def({ env: 'MAILROOM_REDIS_URL', description: 'Redis for rate-limit counters shared across processes', default: undefined, parse: optUrl(['redis:', 'rediss:']), secret: true }),
  roles: def({ env: 'MAILROOM_ROLES', description: 'roles this process runs: api, smtp, mx, worker', default: [...ROLES] as Role[], parse: listOf(ROLES) }),
  regions: def({ env: 'MAILROOM_REGIONS', description: 'regions whose deliveries this worker claims', default: [...REGIONS] as Region[], parse: listOf(REGIONS) }),
  retentionDays: def({ env: 'MAILROOM_RETENTION_DAYS', description: 'days raw message bodies are kept', default: 30, parse: int(1, 3650) }),
  logRetentionDays: def({ env: 'MAILROOM_LOG_RETENTION_DAYS', description: 'days API request logs are kept', default: 30, parse: int(1, 3650) }),
  logLevel: def({ env: 'MAILROOM_LOG_LEVEL', description: 'structured log level: debug, info, warn, error, silent', default: 'info' as 'debug' | 'info' | 'warn' | 'error' | 'silent', parse: oneOf(['debug', 'info', 'warn', 'error', 'silent'] as const) }),
};

export type Schema = typeof schema;
export type Config = { readonly [K in keyof Schema]: Schema[K] extends Setting<infer T> ? T : never };
