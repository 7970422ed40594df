// Cookie header parsing and Set-Cookie serialisation for the dashboard's few cookies.

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* malformed value: ignored */
    }
  }
  return out;
}

export interface CookieOptions {
  maxAgeS?: number; // 0 = delete
  httpOnly?: boolean;
  secure?: boolean;
  path?: string;
}

export function serializeCookie(name: string, value: string, o: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path ?? '/'}`, 'SameSite=Lax'];
  if (o.maxAgeS !== undefined) parts.push(`Max-Age=${o.maxAgeS}`);
  if (o.httpOnly) parts.push('HttpOnly');
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}
