// The OAuth consent page (/dashboard/oauth/authorize, where GET /oauth/authorize sends the
// browser): names the application, what it asks for and where it returns, lets the signed-in user
// pick the team, then approves or denies. The server checks the request again on each call and
// the POST carries the CSRF header (api.ts); the page only navigates to the URL the server answers.
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { AuthCard } from '../components/AuthCard';
import { Alert, ErrorRetry, Loading } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { useSession } from '../session';

interface Consent {
  client: { id: string; name: string; logo_uri: string | null };
  scope: 'full_access' | 'sending_access';
  redirect_uri: string;
  current_team_id: string;
  teams: { id: string; name: string; role: string; can_approve: boolean }[];
}

const SCOPE_TEXT = {
  full_access:
    'Full access: read and change everything in the team (domains, emails, contacts, webhooks…), as a full-access API key can.',
  sending_access: 'Sending access: send emails as the team, and nothing else, as a sending-access API key can.',
};

export function OAuthConsent({ query }: { query: URLSearchParams }) {
  const { state } = useSession();
  const params = Object.fromEntries(query);
  const consent = useLoad(() => get<Consent>(`/dashboard-api/oauth-consent?${query}`), [query.toString()]);
  const [team, setTeam] = useState<string>();
  const decide = useAction(async (decision: 'approve' | 'deny') => {
    const r = await post<{ redirect_to: string }>('/dashboard-api/oauth-consent', {
      ...params,
      team_id: team ?? chosen,
      decision,
    });
    window.location.assign(r.redirect_to);
  });
  const c = consent.data;
  const allowed = c?.teams.filter((t) => t.can_approve) ?? [];
  const chosen = team ?? (allowed.find((t) => t.id === c?.current_team_id) ?? allowed[0])?.id;
  if (consent.error)
    return (
      <AuthCard title="Authorization request">
        <ErrorRetry error={consent.error} retry={consent.reload} />
      </AuthCard>
    );
  if (!c)
    return (
      <AuthCard title="Authorization request">
        <Loading />
      </AuthCard>
    );
  const returnTo = new URL(c.redirect_uri);
  return (
    <AuthCard title={`Allow ${c.client.name} to use Mailroom?`}>
      {c.client.logo_uri && <img src={c.client.logo_uri} alt="" width={48} height={48} referrerpolicy="no-referrer" />}
      <p>
        <strong>{c.client.name}</strong> asks for:
      </p>
      <p data-testid="scope">{SCOPE_TEXT[c.scope]}</p>
      <p class="muted">
        Signed in as <strong>{state.user?.email}</strong>. You will return to{' '}
        <span class="mono">{returnTo.origin}</span>. You can revoke this access at any time under Integrations.
      </p>
      {allowed.length === 0 ? (
        <Alert kind="warn">Only owners and admins can grant access to a team, and you are neither in any team.</Alert>
      ) : (
        <div class="field">
          <label for="oauth-team">Team</label>
          <select id="oauth-team" value={chosen} onChange={(e) => setTeam((e.target as HTMLSelectElement).value)}>
            {c.teams.map((t) => (
              <option key={t.id} value={t.id} disabled={!t.can_approve}>
                {t.name}
                {t.can_approve ? '' : ` (${t.role}: cannot grant)`}
              </option>
            ))}
          </select>
        </div>
      )}
      {decide.error && <Alert>{decide.error}</Alert>}
      <div class="inline-form">
        <button
          class="btn primary"
          disabled={decide.busy || !chosen}
          onClick={() => decide.run('approve')}
          data-testid="approve"
        >
          Allow
        </button>
        <button class="btn ghost" disabled={decide.busy} onClick={() => decide.run('deny')}>
          Deny
        </button>
      </div>
    </AuthCard>
  );
}
