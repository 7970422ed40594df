// Turns the schema and an environment into a frozen Config, once. An invalid value stops the
// start with a message that names the setting; describe() prints the effective config, masked.
import { schema, type Config, type Setting } from './schema.js';

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const out: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [key, setting] of Object.entries(schema) as [string, Setting<unknown>][]) {
    if (key in overrides) {
      out[key] = (overrides as Record<string, unknown>)[key];
      continue;
    }
    const raw = env[setting.env];
    if (raw === undefined || raw === '') {
      out[key] = typeof setting.default === 'function' ? (setting.default as () => unknown)() : setting.default;
      continue;
    }
    try {
      out[key] = setting.parse(raw);
    } catch (err) {
      errors.push(`${setting.env}: ${(err as Error).message}`);
    }
  }
  if (out.deliveryMode === 'relay' && !out.relayUrl)
    errors.push('MAILROOM_RELAY_URL: must be set when MAILROOM_DELIVERY_MODE=relay');
  if (Boolean(out.tlsCert) !== Boolean(out.tlsKey))
    errors.push('MAILROOM_TLS_CERT and MAILROOM_TLS_KEY: set both or neither');
  if ((out.smtpTrustedNetworks as string[]).length && !out.smtpTrustedApiKey)
    errors.push('MAILROOM_SMTP_TRUSTED_API_KEY: must be set when MAILROOM_SMTP_TRUSTED_NETWORKS is');
  if (errors.length) throw new ConfigError(`Invalid configuration:\n  ${errors.join('\n  ')}`);
  return Object.freeze(out) as Config;
}

const mask = (v: unknown): string => (v === undefined ? '(unset)' : '********');

function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (Array.isArray(v)) return v.map(show).join(',');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('port' in o) return [o.host, o.port, o.security].filter((x) => x !== undefined).join(':');
    return JSON.stringify(v);
  }
  return String(v);
}

/** The effective configuration as rows of env name, value (secrets masked) and description. */
export function describeConfig(config: Config): { env: string; value: string; description: string }[] {
  return (Object.entries(schema) as [keyof Config, Setting<unknown>][]).map(([key, s]) => {
    let value = config[key] as unknown;
    if ((key === 'databaseUrl' || key === 'databaseDirectUrl') && typeof value === 'string') {
      const u = new URL(value);
      if (u.password) u.password = '********';
      return { env: s.env, value: u.toString(), description: s.description };
    }
    return { env: s.env, value: s.secret ? mask(value) : show(value), description: s.description };
  });
}
