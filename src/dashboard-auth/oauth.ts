// OAuth sign-in with GitHub and Google: authorization-code flow with PKCE (S256) and a random
// state, both kept in a sealed, short-lived, HttpOnly cookie (no server-side state, so any api
// process can take the callback). Accounts are linked by a VERIFIED email only.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { Sealer } from '../lib/crypto.js';
import { parseCookies, serializeCookie } from './cookies.js';

export type ProviderName = 'github' | 'google';
export const OAUTH_COOKIE = 'mailroom_oauth';
const STATE_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;

export interface Identity {
  subject: string;
  verifiedEmails: string[];
  name: string;
}

interface Provider {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  scope: string;
  identity(accessToken: string): Promise<Identity>;
}

interface FlowState {
  p: ProviderName;
  s: string;
  v: string;
  i: string | null;
  e: number;
}

async function getJson(url: string, init: RequestInit): Promise<any> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok) throw new AppError('forbidden', `The provider answered ${res.status} at ${new URL(url).pathname}.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('forbidden', 'The provider answered something other than JSON.');
  }
}

export class OAuth {
  private readonly sealer: Sealer;
  private readonly providers: Partial<Record<ProviderName, Provider>> = {};

  constructor(
    private readonly config: Config,
    secretKey: string,
  ) {
    this.sealer = new Sealer(secretKey, 'mailroom-oauth-state');
    const ua = { 'user-agent': 'Mailroom', accept: 'application/json' };
    if (config.githubClientId && config.githubClientSecret) {
      const api = config.githubApiUrl;
      this.providers.github = {
        clientId: config.githubClientId,
        clientSecret: config.githubClientSecret,
        scope: 'read:user user:email',
        authorizeUrl: `${config.githubOauthUrl}/login/oauth/authorize`,
        tokenUrl: `${config.githubOauthUrl}/login/oauth/access_token`,
        async identity(token) {
          const headers = { ...ua, authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' };
          const user = await getJson(`${api}/user`, { headers });
          const emails = (await getJson(`${api}/user/emails`, { headers })) as {
            email: string;
            verified: boolean;
            primary: boolean;
          }[];
          const verified = (Array.isArray(emails) ? emails : [])
            .filter((e) => e.verified === true && typeof e.email === 'string')
            .sort((a, b) => Number(b.primary) - Number(a.primary))
            .map((e) => e.email);
          return { subject: String(user.id), verifiedEmails: verified, name: String(user.name ?? user.login ?? '') };
        },
      };
    }
    if (config.googleClientId && config.googleClientSecret) {
      const userinfo = config.googleUserinfoUrl;
      this.providers.google = {
        clientId: config.googleClientId,
        clientSecret: config.googleClientSecret,
        scope: 'openid email profile',
        authorizeUrl: config.googleAuthUrl,
        tokenUrl: config.googleTokenUrl,
        async identity(token) {
          const u = await getJson(userinfo, { headers: { ...ua, authorization: `Bearer ${token}` } });
          const verified = u.email_verified === true || u.email_verified === 'true';
          return {
            subject: String(u.sub),
            verifiedEmails: verified && typeof u.email === 'string' ? [u.email] : [],
            name: String(u.name ?? ''),
          };
        },
      };
    }
  }

  enabled(): ProviderName[] {
    return Object.keys(this.providers) as ProviderName[];
  }

  private provider(name: string): Provider {
    const p = this.providers[name as ProviderName];
    if (!p) throw new AppError('not_found', 'This sign-in provider is not configured.');
    return p;
  }

  redirectUri(name: ProviderName): string {
    return `${this.config.publicUrl}/dashboard-api/oauth/${name}/callback`;
  }

  /** Where to send the browser, and the cookie that remembers state and verifier. */
  start(name: string, invite: string | null): { location: string; cookie: string } {
    const p = this.provider(name);
    const state: FlowState = {
      p: name as ProviderName,
      s: randomBytes(24).toString('base64url'),
      v: randomBytes(48).toString('base64url'),
      i: invite,
      e: Date.now() + STATE_TTL_MS,
    };
    const challenge = createHash('sha256').update(state.v).digest('base64url');
    const q = new URLSearchParams({
      client_id: p.clientId,
      redirect_uri: this.redirectUri(state.p),
      response_type: 'code',
      scope: p.scope,
      state: state.s,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return {
      location: `${p.authorizeUrl}?${q}`,
      cookie: this.cookie(this.sealer.seal(JSON.stringify(state)), STATE_TTL_MS / 1000),
    };
  }

  cookie(value: string, maxAgeS: number): string {
    return serializeCookie(OAUTH_COOKIE, value, {
      maxAgeS,
      httpOnly: true,
      secure: this.config.publicUrl.startsWith('https:'),
      path: '/dashboard-api/oauth/',
    });
  }

  /** Checks the state, redeems the code with the PKCE verifier, and returns who signed in. */
  async finish(
    name: string,
    query: { code?: string; state?: string; error?: string },
    cookieHeader: string | undefined,
  ): Promise<{ identity: Identity; invite: string | null }> {
    const p = this.provider(name);
    if (query.error)
      throw new AppError('forbidden', `Sign-in was cancelled at the provider (${String(query.error).slice(0, 100)}).`);
    let state: FlowState | undefined;
    try {
      state = JSON.parse(this.sealer.open(parseCookies(cookieHeader)[OAUTH_COOKIE] ?? ''));
    } catch {
      state = undefined;
    }
    const sent = Buffer.from(String(query.state ?? ''));
    if (
      !state ||
      state.p !== name ||
      state.e < Date.now() ||
      sent.length !== Buffer.from(state.s).length ||
      !timingSafeEqual(sent, Buffer.from(state.s))
    ) {
      throw new AppError('forbidden', 'The sign-in request expired or did not start here. Try again.');
    }
    if (!query.code) throw new AppError('forbidden', 'The provider sent no authorization code.');
    const token = await getJson(p.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'Mailroom',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: query.code,
        redirect_uri: this.redirectUri(state.p),
        client_id: p.clientId,
        client_secret: p.clientSecret,
        code_verifier: state.v,
      }),
    });
    if (typeof token.access_token !== 'string')
      throw new AppError('forbidden', `The provider refused the code (${String(token.error ?? 'no access token')}).`);
    return { identity: await p.identity(token.access_token), invite: state.i };
  }
}
