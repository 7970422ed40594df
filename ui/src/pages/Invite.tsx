// An invite link: who invites you where, then join (signed in), create an account, or use OAuth.
import { get, post } from '../api';
import { Alert, Loading } from '../components/ui';
import { AuthCard, Field, formData } from '../components/AuthCard';
import { Link } from '../components/Link';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { useSession } from '../session';
import { useState } from 'preact/hooks';

export function Invite({ token }: { token: string }) {
  const { state, reload } = useSession();
  const inv = useLoad(() => get<{ team_name: string; role: string; email: string | null }>(`/dashboard-api/invites/${encodeURIComponent(token)}`), [token]);
  const go = async () => { await reload(); navigate('/emails', { replace: true }); };
  const join = useAction(async () => { await post(`/dashboard-api/invites/${token}/accept`); await go(); });
  const [sentTo, setSentTo] = useState<string>();
  const signup = useAction(async (d: Record<string, string>) => { setSentTo((await post<{ email: string }>(`/dashboard-api/invites/${token}/signup`, d)).email); });
  if (inv.loading) return <AuthCard title="Invitation"><Loading /></AuthCard>;
  if (inv.error || !inv.data) return <AuthCard title="Invitation"><Alert>{inv.error}</Alert><p><Link href="/login">Sign in</Link></p></AuthCard>;
  const i = inv.data;
  if (sentTo) return <AuthCard title="Check your email"><Alert kind="ok">We sent a link to <strong>{sentTo}</strong>. Open it to confirm the address and join {i.team_name}.</Alert></AuthCard>;
  return (
    <AuthCard title={`Join ${i.team_name}`} sub={`You are invited as ${i.role === 'admin' ? 'an admin' : 'a member'}${i.email ? ` (for ${i.email})` : ''}.`}>
      {state.signed_in ? (
        <>
          <p>Signed in as <strong>{state.user?.email}</strong>.</p>
          {join.error && <Alert>{join.error}</Alert>}
          <button class="btn primary wide" onClick={() => join.run()} disabled={join.busy}>Join {i.team_name}</button>
        </>
      ) : (
        <>
          <form onSubmit={(e) => { e.preventDefault(); signup.run(formData(e)); }}>
            <Field label="Your name" name="name" autocomplete="name" />
            <Field label="Email" name="email" type="email" required autocomplete="username" value={i.email ?? undefined} readOnly={Boolean(i.email)} />
            <Field label="Password" name="password" type="password" required minLength={10} autocomplete="new-password" hint="At least 10 characters." />
            {signup.error && <Alert>{signup.error}</Alert>}
            <button class="btn primary wide" disabled={signup.busy}>Create account and join</button>
          </form>
          {state.oauth.map((p) => <a key={p} class="btn wide" href={`/dashboard-api/oauth/${p}/start?invite=${token}`}>Join with {p === 'github' ? 'GitHub' : 'Google'}</a>)}
          <p class="small">Have an account? <Link href={`/login`}>Sign in</Link>, then open this link again.</p>
        </>
      )}
    </AuthCard>
  );
}

/** An email confirmation link: proves the address, joins the invite's team, signs in. */
export function Verify({ token }: { token: string }) {
  const { reload } = useSession();
  const v = useLoad(async () => { await post(`/dashboard-api/verify`, { token }); await reload(); navigate('/emails', { replace: true }); return true; }, [token]);
  return <AuthCard title="Confirming your email">{v.error ? <><Alert>{v.error}</Alert><p><Link href="/login">Sign in</Link></p></> : <Loading />}</AuthCard>;
}
