// API keys: create with a permission (and a domain for sending-only keys), an optional expiry and
// allowed source networks (changed later under Limits: components/KeyLimits.tsx), the token shown
// once to copy, and revoke.
import { useState } from 'preact/hooks';
import { del, get, post, type List } from '../api';
import { KeyLimits, networksOf } from '../components/KeyLimits';
import { Alert, Copy, Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { ago, fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { canEdit, useSession } from '../session';

interface Key {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  permission: string;
  domain_id: string | null;
  domain_name: string | null;
  token_hint: string;
  expires_at: string | null;
  allowed_networks: string[] | null;
}

const expired = (at: string | null) => at !== null && new Date(at).getTime() <= Date.now();

export function ApiKeys() {
  const { state } = useSession();
  const edit = canEdit(state);
  const keys = useLoad(() => get<List<Key>>('/dashboard-api/api-keys'), []);
  const domains = useLoad(() => get<List<{ id: string; name: string }>>('/domains'), []);
  const [permission, setPermission] = useState('full_access');
  const [created, setCreated] = useState<{ id: string; name: string; token: string }>();
  const [limiting, setLimiting] = useState<Key>();
  const create = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const networks = networksOf(d.allowed_networks);
    const r = await post<{ id: string; token: string }>('/api-keys', {
      name: d.name,
      permission: d.permission,
      ...(d.domain_id ? { domain_id: d.domain_id } : {}),
      // datetime-local is the browser's local time; the API takes an instant.
      ...(d.expires_at ? { expires_at: new Date(d.expires_at).toISOString() } : {}),
      ...(networks.length ? { allowed_networks: networks } : {}),
    });
    setCreated({ id: r.id, name: d.name, token: r.token });
    form.reset();
    setPermission('full_access');
    keys.reload();
  });
  const revoke = useAction(async (k: Key) => {
    if (!confirm(`Revoke "${k.name}"? Applications using it stop working at once.`)) return;
    await del(`/api-keys/${k.id}`);
    if (created?.id === k.id) setCreated(undefined); // its "your new key" banner goes with it
    keys.reload();
  });
  return (
    <>
      <PageHead
        title="API keys"
        sub="Keys authenticate the REST API and SMTP submission. Each is shown once, when created."
      />
      {created && (
        <section class="card highlight" aria-live="polite">
          <h2>Your new key "{created.name}"</h2>
          <p>Copy it now: it is stored only as a hash and cannot be shown again.</p>
          <div class="token">
            <code class="mono" data-testid="new-token">
              {created.token}
            </code>
            <Copy text={created.token} />
          </div>
          <button class="btn ghost sm" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      )}
      {edit && (
        <form
          class="inline-form card"
          onSubmit={(e) => {
            e.preventDefault();
            create.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <label class="field-inline">
            Name <input name="name" required maxLength={50} placeholder="Production" />
          </label>
          <label class="field-inline">
            Permission
            <select
              name="permission"
              value={permission}
              onChange={(e) => setPermission((e.target as HTMLSelectElement).value)}
            >
              <option value="full_access">Full access</option>
              <option value="sending_access">Sending access</option>
            </select>
          </label>
          {permission === 'sending_access' && (
            <label class="field-inline">
              Domain
              <select name="domain_id">
                <option value="">Any domain</option>
                {domains.data?.data.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label class="field-inline">
            Expires <input name="expires_at" type="datetime-local" aria-label="Expires (optional)" />
          </label>
          <label class="field-inline grow">
            Allowed networks{' '}
            <input
              name="allowed_networks"
              maxLength={2000}
              placeholder="optional: 203.0.113.0/24, 2001:db8::/32"
              aria-label="Allowed networks (optional)"
            />
          </label>
          <button class="btn primary" disabled={create.busy}>
            Create key
          </button>
          {create.error && <Alert>{create.error}</Alert>}
        </form>
      )}
      {revoke.error && <Alert>{revoke.error}</Alert>}
      {limiting && (
        <KeyLimits
          key={limiting.id}
          k={limiting}
          onDone={(changed) => {
            setLimiting(undefined);
            if (changed) keys.reload();
          }}
        />
      )}
      {keys.error && <ErrorRetry error={keys.error} status={keys.errorStatus} retry={keys.reload} />}
      {!keys.data ? (
        keys.error ? null : (
          <Loading />
        )
      ) : keys.data.data.length === 0 ? (
        <Empty title="No API keys">Create one above to send through the API or SMTP.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Token</th>
                <th scope="col">Permission</th>
                <th scope="col">Domain</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Networks</th>
                {edit && (
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td class="mono nowrap" title="The token's first characters">
                    {k.token_hint}…
                  </td>
                  <td>{k.permission === 'sending_access' ? 'Sending only' : 'Full access'}</td>
                  <td>{k.domain_name ?? (k.permission === 'sending_access' ? 'Any domain' : '—')}</td>
                  <td title={fmtDate(k.created_at)}>{ago(k.created_at)}</td>
                  <td>{k.last_used_at ? ago(k.last_used_at) : 'never'}</td>
                  <td title={k.expires_at ? fmtDate(k.expires_at) : undefined}>
                    {k.expires_at ? (expired(k.expires_at) ? 'expired' : fmtDate(k.expires_at)) : 'never'}
                  </td>
                  <td class="mono small">{k.allowed_networks?.join(', ') ?? 'any'}</td>
                  {edit && (
                    <td class="right nowrap">
                      <button class="btn ghost sm" onClick={() => setLimiting(k)} aria-label={`Limits of ${k.name}`}>
                        Limits
                      </button>{' '}
                      <button class="btn ghost sm bad" onClick={() => revoke.run(k)} aria-label={`Revoke ${k.name}`}>
                        Revoke
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
