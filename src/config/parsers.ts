// The parsers of settings' raw text (config/schema.ts declares which setting uses which): each
// returns the typed value or throws a message naming what was wrong. Pure: no process.env here.
import { isIP } from 'node:net';
import { REGIONS, type Region } from './roles.js';

export type Parser<T> = (raw: string) => T;

export const fail = (msg: string): never => {
  throw new Error(msg);
};

export const str: Parser<string> = (raw) => raw;
export const optStr: Parser<string | undefined> = (raw) => (raw === '' ? undefined : raw);
export const int =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) fail(`must be an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) fail(`must be between ${min} and ${max}, got ${n}`);
    return n;
  };
/** A fraction between 0 and 1, written as 0.003 or 0.3% */
export const rate: Parser<number> = (raw) => {
  const v = raw.trim();
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(v);
  if (!m) return fail(`must be a fraction such as 0.003 or a percentage such as 0.3%, got "${raw}"`);
  const n = Number(m[1]) / (m[2] ? 100 : 1);
  if (n < 0 || n > 1) fail(`must be between 0 and 1 (0% and 100%), got ${raw}`);
  return n;
};
export const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return fail(`must be true or false, got "${raw}"`);
};
export const oneOf =
  <T extends string>(values: readonly T[]): Parser<T> =>
  (raw) =>
    (values as readonly string[]).includes(raw)
      ? (raw as T)
      : fail(`must be one of ${values.join(', ')}, got "${raw}"`);
export const listOf =
  <T extends string>(values: readonly T[]): Parser<T[]> =>
  (raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(oneOf(values));
export const url =
  (protocols: string[]): Parser<string> =>
  (raw) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return fail(`must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(u.protocol)) fail(`must use ${protocols.join(' or ')}, got "${u.protocol}"`);
    return raw.replace(/\/+$/, '');
  };
export const optUrl =
  (protocols: string[]): Parser<string | undefined> =>
  (raw) =>
    raw === '' ? undefined : url(protocols)(raw);

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
export const smtpListeners: Parser<SmtpListener[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const m = /^(?:(.+):)?(\d{1,5}):(starttls|tls)$/.exec(item);
      if (!m) return fail(`each listener must be [host:]port:starttls|tls, got "${item}"`);
      const host = (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, '');
      const port = Number(m[2]);
      if (port > 65535) fail(`port out of range in "${item}"`);
      return { host, port, security: m[3] as 'starttls' | 'tls' };
    });
/** IPv4/IPv6 addresses or CIDR blocks (`10.0.0.0/8`, `::1`), comma separated. */
export const cidrList: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [ip, bits, extra] = s.split('/');
      const family = isIP(ip);
      const max = family === 6 ? 128 : 32;
      if (!family || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max)))
        fail(`each entry must be an IP address or CIDR block, got "${s}"`);
      return s;
    });
/** Which peers' X-Forwarded-For is believed: false (none), true (any), or proxy addresses/CIDR blocks. */
export const trustProxy: Parser<boolean | string[]> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  return cidrList(raw);
};
/** Durations such as `0s,500ms,5m,2h`, comma separated, as milliseconds (at least one). */
export const durations: Parser<number[]> = (raw) => {
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const out = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(\d+)(ms|s|m|h|d)$/.exec(s);
      return m ? Number(m[1]) * unit[m[2]] : fail(`each duration must look like 500ms, 5s, 5m, 2h or 1d, got "${s}"`);
    });
  return out.length ? out : fail('must list at least one duration');
};
export const hostPortList: Parser<HostPort[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(hostPort);
export const dnsServers: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (!/^(\[[0-9a-fA-F:]+\]|[0-9.]+|[0-9a-fA-F:]+)(:\d{1,5})?$/.test(s))
        fail(`each DNS server must be an IP address with an optional :port, got "${s}"`);
      return s;
    });

/** Plain IP addresses (no CIDR), comma separated. */
export const ipList: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => (isIP(s) ? s : fail(`each entry must be an IP address, got "${s}"`)));
/** DNS zone names such as zen.spamhaus.org, comma separated; `none` = no zones. */
export const zoneList: Parser<string[]> = (raw) =>
  raw.trim().toLowerCase() === 'none'
    ? []
    : raw
        .split(',')
        .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
        .filter(Boolean)
        .map((s) =>
          /^(?!-)[a-z0-9-]{1,63}(\.(?!-)[a-z0-9-]{1,63})+$/.test(s)
            ? s
            : fail(`each entry must be a DNS zone such as zen.spamhaus.org, got "${s}"`),
        );

export interface RegionEgress {
  relayUrl?: string;
  heloName?: string;
  sourceAddress?: string;
}
export const regionEgress: Parser<Partial<Record<Region, RegionEgress>>> = (raw) => {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return fail(
      'must be JSON such as {"eu-west-1":{"relayUrl":"smtp://relay:587","heloName":"eu.mail.example.com","sourceAddress":"192.0.2.10"}}',
    );
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return fail('must be a JSON object keyed by region');
  const out: Partial<Record<Region, RegionEgress>> = {};
  for (const [region, e] of Object.entries(v as Record<string, unknown>)) {
    if (!(REGIONS as readonly string[]).includes(region)) fail(`unknown region "${region}"`);
    if (!e || typeof e !== 'object') fail(`${region}: must be an object`);
    const { relayUrl, heloName, sourceAddress, ...rest } = e as Record<string, unknown>;
    if (Object.keys(rest).length)
      fail(`${region}: unknown keys ${Object.keys(rest).join(', ')} (relayUrl, heloName, sourceAddress)`);
    if (relayUrl !== undefined) url(['smtp:', 'smtps:'])(String(relayUrl));
    if (sourceAddress !== undefined && !/^[0-9a-fA-F.:]+$/.test(String(sourceAddress)))
      fail(`${region}: sourceAddress must be an IP address`);
    out[region as Region] = {
      relayUrl: relayUrl as string | undefined,
      heloName: heloName as string | undefined,
      sourceAddress: sourceAddress as string | undefined,
    };
  }
  return out;
};
