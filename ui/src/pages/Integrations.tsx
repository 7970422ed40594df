// Integrations: the applications this team has granted access through OAuth (revocable: every
// token of the grant stops at once), and for the operator (owners of the default team) the
// registered OAuth clients, registered here or with `mailroom oauth-clients`.
import { useState } from 'preact/hooks';
import { del, get, post, type List } from '../api';
import { Alert, Copy, Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { ago, fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { canEdit, useSession } from '../session';

interface Grant {
  id: string;
  client_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  client: { name: string; logo_uri: string | null };
}

interface Client {
  id: string;
  name: string;
  redirect_uris: string[];
  confidential: boolean;
  created_at: string;
  client_secret?: string | null;
}

export function Integrations() {
  const { state } = useSession();
  const edit = canEdit(state);
  const grants = useLoad(() => get<List<Grant>>('/oauth/grants?limit=100'), []);
  const revoke = useAction(async (g: Grant) => {
    if (!confirm(`Revoke ${g.client.name}'s access? Its tokens stop working at once.`)) return;
    await del(`/oauth/grants/${g.id}`);
    grants.reload();
  });
  return (
    <>
      <PageHead
        title="Integrations"
        sub="Applications this team allowed to use Mailroom through OAuth, with the access each was given."
      />
      {revoke.error && <Alert>{revoke.error}</Alert>}
      {grants.error && <ErrorRetry error={grants.error} retry={grants.reload} />}
      {!grants.data ? (
        grants.error ? null : (
          <Loading />
        )
      ) : grants.data.data.length === 0 ? (
        <Empty title="No connected applications">An application asks for access by sending you to Mailroom.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Access</th>
                <th scope="col">Granted</th>
                <th scope="col">Status</th>
                {edit && (
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {grants.data.data.map((g) => (
                <tr key={g.id}>
                  <td>{g.client.name}</td>
                  <td>{g.scopes.includes('full_access') ? 'Full access' : 'Sending only'}</td>
                  <td title={fmtDate(g.created_at)}>{ago(g.created_at)}</td>
                  <td>{g.revoked_at ? `Revoked ${ago(g.revoked_at)} (${g.revoked_reason})` : 'Active'}</td>
                  {edit && (
                    <td class="right">
                      {!g.revoked_at && (
                        <button class="btn ghost sm bad" onClick={() => revoke.run(g)}>
                          Revoke
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OAuthClients />
    </>
  );
}

/** Shown to the operator only: the server answers 403 to anyone else, and then nothing shows. */
function OAuthClients() {
  const clients = useLoad(() => get<List<Client>>('/dashboard-api/oauth-clients'), []);
  const [created, setCreated] = useState<Client>();
  const create = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const r = await post<Client>('/dashboard-api/oauth-clients', {
      name: d.name,
      redirect_uris: d.redirect_uris.split(/\s+/).filter(Boolean),
      public: d.public === 'on',
    });
    setCreated(r);
    form.reset();
    clients.reload();
  });
  const remove = useAction(async (c: Client) => {
    if (!confirm(`Delete ${c.name}? Every team's access through it ends at once.`)) return;
    await del(`/dashboard-api/oauth-clients/${c.id}`);
    clients.reload();
  });
  if (!clients.data) return null;
  return (
    <section class="card">
      <h2>OAuth clients</h2>
      <p class="muted">Applications that may ask any team for access. Redirect URIs are matched exactly.</p>
      {created && (
        <div class="highlight" aria-live="polite">
          <p>
            client_id <code class="mono">{created.id}</code> <Copy text={created.id} small />
          </p>
          {created.client_secret && (
            <p>
              client_secret (shown once) <code class="mono">{created.client_secret}</code>{' '}
              <Copy text={created.client_secret} small />
            </p>
          )}
        </div>
      )}
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(e.currentTarget as HTMLFormElement);
        }}
      >
        <label class="field-inline">
          Name <input name="name" required maxLength={100} placeholder="Acme CRM" />
        </label>
        <label class="field-inline">
          Redirect URIs <input name="redirect_uris" required placeholder="https://app.example/callback" />
        </label>
        <label class="field-inline">
          <input type="checkbox" name="public" /> Public (no secret)
        </label>
        <button class="btn primary" disabled={create.busy}>
          Register
        </button>
        {create.error && <Alert>{create.error}</Alert>}
      </form>
      {remove.error && <Alert>{remove.error}</Alert>}
      <ul>
        {clients.data.data.map((c) => (
          <li key={c.id}>
            <strong>{c.name}</strong> <span class="mono">{c.id}</span> · {c.confidential ? 'confidential' : 'public'} ·{' '}
            {c.redirect_uris.join(', ')}{' '}
            <button class="btn ghost sm bad" onClick={() => remove.run(c)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
