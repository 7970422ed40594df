// A small fake OAuth provider on 127.0.0.1 speaking GitHub's and Google's shapes: /authorize
// remembers the PKCE challenge per issued code, /token checks code, redirect_uri, client secret and
// the verifier (S256), then /user, /user/emails (GitHub) and /userinfo (Google) describe the
// identity the test set.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeIdentity {
  id: string;
  name: string;
  emails: { email: string; verified: boolean; primary: boolean }[];
}

export interface FakeOAuth {
  url: string;
  identity: FakeIdentity;
  tokenRequests: URLSearchParams[];
  /** Follows the authorization URL as a consenting user would: returns the redirect back. */
  authorize(authorizeUrl: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startFakeOAuth(clientSecret: string): Promise<FakeOAuth> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();
  const fake: Partial<FakeOAuth> = { identity: { id: '4242', name: 'Octo Cat', emails: [] }, tokenRequests: [] };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const authed = () => tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (u.pathname.endsWith('/authorize') || u.pathname === '/o/oauth2/v2/auth') {
      if (
        u.searchParams.get('code_challenge_method') !== 'S256' ||
        !u.searchParams.get('code_challenge') ||
        !u.searchParams.get('state')
      )
        return json(400, { error: 'pkce_and_state_required' });
      const code = randomBytes(8).toString('hex');
      codes.set(code, {
        challenge: u.searchParams.get('code_challenge')!,
        redirectUri: u.searchParams.get('redirect_uri')!,
      });
      const back = new URL(u.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state')!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && (u.pathname.endsWith('/access_token') || u.pathname === '/token')) {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const p = new URLSearchParams(body);
        fake.tokenRequests!.push(p);
        const c = codes.get(p.get('code') ?? '');
        codes.delete(p.get('code') ?? '');
        if (!c || p.get('client_secret') !== clientSecret || p.get('redirect_uri') !== c.redirectUri)
          return json(400, { error: 'invalid_grant' });
        if (
          createHash('sha256')
            .update(p.get('code_verifier') ?? '')
            .digest('base64url') !== c.challenge
        )
          return json(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        const token = randomBytes(12).toString('hex');
        tokens.add(token);
        return json(200, { access_token: token, token_type: 'bearer' });
      });
      return;
    }
    if (!authed()) return json(401, { message: 'Bad credentials' });
    const id = fake.identity!;
    if (u.pathname === '/user') return json(200, { id: Number(id.id), login: 'octocat', name: id.name });
    if (u.pathname === '/user/emails') return json(200, id.emails);
    if (u.pathname === '/userinfo') {
      const e = id.emails[0];
      return json(200, { sub: id.id, name: id.name, email: e?.email, email_verified: e?.verified ?? false });
    }
    return json(404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.authorize = async (authorizeUrl: string) => {
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return new URL(res.headers.get('location')!);
  };
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake as FakeOAuth;
}
