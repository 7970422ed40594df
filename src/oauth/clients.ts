// OAuth clients, registered by the operator (CLI, or owners of the default team in the dashboard):
// a name, an optional logo, the redirect URIs an authorization may return to (matched exactly),
// and a secret unless the client is public (a native or browser app that cannot keep one; PKCE
// alone then binds the code to it).
import { AppError, invalidField } from '../errors.js';
import { isUuid, randomToken, sha256Hex, uuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { oauthClientDelete, oauthClientInsert, oauthClientList, type OAuthClientRow } from '../store/oauth.js';

export interface CreatedClient extends OAuthClientRow {
  /** shown once; null for a public client */
  client_secret: string | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why the URI cannot be a redirect URI, or null. https, or http on loopback only (RFC 8252 7.3:
 * a native app listens there); no fragment (RFC 6749 3.1.2); no userinfo.
 */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || uri.includes('#')) return 'must not have a fragment';
  if (u.username || u.password) return 'must not carry a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return null;
  return 'must be https (http only on localhost, 127.0.0.1 or [::1])';
}

export class OAuthClients {
  constructor(private readonly db: Queryable) {}

  async create(input: {
    name?: unknown;
    redirect_uris?: unknown;
    logo_uri?: unknown;
    public?: unknown;
  }): Promise<CreatedClient> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) throw invalidField('name', 'must not be empty.');
    if (name.length > 100) throw invalidField('name', 'must be at most 100 characters.');
    const uris = input.redirect_uris;
    if (!Array.isArray(uris) || !uris.length || uris.some((u) => typeof u !== 'string'))
      throw invalidField('redirect_uris', 'must list at least one URL.');
    for (const u of uris as string[]) {
      const problem = redirectUriProblem(u);
      if (problem) throw invalidField('redirect_uris', `"${u}" ${problem}.`);
    }
    let logo: string | null = null;
    if (input.logo_uri !== undefined && input.logo_uri !== null && input.logo_uri !== '') {
      if (typeof input.logo_uri !== 'string' || !/^https?:\/\//.test(input.logo_uri) || !URL.canParse(input.logo_uri))
        throw invalidField('logo_uri', 'must be an http(s) URL.');
      logo = input.logo_uri;
    }
    const secret = input.public === true ? null : `mrcs_${randomToken(40)}`;
    const id = uuid();
    await oauthClientInsert(this.db, {
      id,
      name,
      logoUri: logo,
      redirectUris: [...new Set(uris as string[])],
      secretHash: secret ? sha256Hex(secret) : null,
    });
    const created = (await this.list()).find((c) => c.id === id);
    if (!created) throw new AppError('application_error');
    return { ...created, client_secret: secret };
  }

  list(): Promise<OAuthClientRow[]> {
    return oauthClientList(this.db);
  }

  /** False when there is no such client. Its grants and every token of them go with it. */
  async delete(id: string): Promise<boolean> {
    return isUuid(id) && oauthClientDelete(this.db, id);
  }
}
