// A browser stand-in for the dashboard's HTTP calls: keeps cookies (Set-Cookie in, Cookie out),
// sends the CSRF header the SPA sends, and parses JSON. One client = one browser.
export interface Res {
  status: number;
  headers: Headers;
  body: any;
  setCookies: string[];
}

export class DashboardClient {
  readonly jar = new Map<string, string>();
  csrf: string | undefined;
  constructor(readonly url: string) {}

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async req(
    method: string,
    path: string,
    body?: unknown,
    o: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (this.jar.size) headers.cookie = this.cookieHeader();
    if (o.csrf !== false && this.csrf && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair, ...attrs] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (parsed && typeof parsed === 'object' && typeof (parsed as { csrf?: unknown }).csrf === 'string')
      this.csrf = (parsed as { csrf: string }).csrf;
    return { status: res.status, headers: res.headers, body: parsed, setCookies };
  }

  get = (p: string) => this.req('GET', p);
  post = (p: string, b?: unknown, o?: { csrf?: boolean }) => this.req('POST', p, b ?? {}, o);
}

/** The newest system mail (resets, confirmations) to an address: held by the system team, read here from the database. */
export async function systemMailTo(
  t: { db: { pool: { query: (q: string, p: unknown[]) => Promise<{ rows: any[] }> } } },
  to: string,
): Promise<{ id: string; subject: string; text: string; raw: string } | undefined> {
  const { rows } = await t.db.pool.query(
    `SELECT id, subject, text_body AS text, convert_from(raw, 'UTF8') AS raw FROM emails WHERE team_id = '00000000-0000-4000-8000-00000000f00d' AND $1 = ANY(to_addrs) ORDER BY created_at DESC LIMIT 1`,
    [to.toLowerCase()],
  );
  return rows[0];
}

/** Signs up from an invite link (address only), opens the link emailed to it and chooses the password there; `c` ends signed in. */
export async function inviteSignupConfirmed(
  t: Parameters<typeof systemMailTo>[0],
  c: DashboardClient,
  inviteToken: string,
  body: { email: string; password: string; name?: string },
): Promise<Res> {
  const signup = await c.post(`/dashboard-api/invites/${inviteToken}/signup`, { email: body.email, name: body.name });
  if (signup.status !== 200) return signup;
  const token = confirmationToken(await systemMailTo(t, body.email));
  if (!token) throw new Error(`no confirmation link was sent to ${body.email}`);
  return c.post('/dashboard-api/verify', { token, password: body.password });
}

/** The token of the confirmation link in a system mail. */
export function confirmationToken(mail: { text: string } | undefined): string | undefined {
  return /\/dashboard\/verify\/([A-Za-z0-9]{40})/.exec(mail?.text ?? '')?.[1];
}
