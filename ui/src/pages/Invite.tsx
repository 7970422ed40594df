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
  const inv = useLoad(
    () =>
      get<{ team_name: string; role: string; email: string | null }>(
        `/dashboard-api/invites/${encodeURIComponent(token)}`,
      ),
    [token],
  );
  const go = async () => {
    await reload();
    navigate('/emails', { replace: true });
  };
  const join = useAction(async () => {
    await post(`/dashboard-api/invites/${token}/accept`);
    await go();
  });
  const [sentTo, setSentTo] = useState<string>();
  const signup = useAction(async (d: Record<string, string>) => {
    setSentTo((await post<{ email: string }>(`/dashboard-api/invites/${token}/signup`, d)).email);
  });
  if (inv.loading)
    return (
      <AuthCard title="Invitation">
        <Loading />
      </AuthCard>
    );
  if (inv.error || !inv.data)
    return (
      <AuthCard title="Invitation">
        <Alert>{inv.error}</Alert>
        <p>
          <Link href="/login">Sign in</Link>
        </p>
      </AuthCard>
    );
  const i = inv.data;
  if (sentTo)
    return (
      <AuthCard title="Check your email">
        <Alert kind="ok">
          We sent a link to <strong>{sentTo}</strong>. Open it to confirm the address, choose your password and join{' '}
          {i.team_name}.
        </Alert>
      </AuthCard>
    );
  return (
    <AuthCard
      title={`Join ${i.team_name}`}
      sub={`You are invited as ${i.role === 'admin' ? 'an admin' : 'a member'}${i.email ? ` (for ${i.email})` : ''}.`}
    >
      {state.signed_in ? (
        <>
          <p>
            Signed in as <strong>{state.user?.email}</strong>.
          </p>
          {join.error && <Alert>{join.error}</Alert>}
          <button class="btn primary wide" onClick={() => join.run()} disabled={join.busy}>
            Join {i.team_name}
          </button>
        </>
      ) : (
        <>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              signup.run(formData(e));
            }}
          >
            <Field label="Your name" name="name" autocomplete="name" />
            <Field
              label="Email"
              name="email"
              type="email"
              required
              autocomplete="username"
              value={i.email ?? undefined}
              readOnly={Boolean(i.email)}
            />
            {signup.error && <Alert>{signup.error}</Alert>}
            <button class="btn primary wide" disabled={signup.busy}>
              Create account and join
            </button>
            <p class="small">We email a link to this address: you choose your password when you open it.</p>
          </form>
          {state.oauth.map((p) => (
            <a key={p} class="btn wide" href={`/dashboard-api/oauth/${p}/start?invite=${token}`}>
              Join with {p === 'github' ? 'GitHub' : 'Google'}
            </a>
          ))}
          <p class="small">
            Have an account? <Link href={`/login`}>Sign in</Link>, then open this link again.
          </p>
        </>
      )}
    </AuthCard>
  );
}

/**
 * An email confirmation link: says which address, team and inviter it is for; whoever opens it
 * chooses the password here (the sign-up took none), which proves the address, joins the team and
 * signs in. Loading the page changes nothing; only the form does.
 */
export function Verify({ token }: { token: string }) {
  const { reload } = useSession();
  const v = useLoad(
    () =>
      get<{ email: string; password_required: boolean; team_name: string | null; invited_by: string | null }>(
        `/dashboard-api/verify/${encodeURIComponent(token)}`,
      ),
    [token],
  );
  const confirm = useAction(async (d: Record<string, string>) => {
    await post(`/dashboard-api/verify`, { ...d, token });
    await reload();
    navigate('/emails', { replace: true });
  });
  if (v.loading)
    return (
      <AuthCard title="Confirm your email">
        <Loading />
      </AuthCard>
    );
  if (v.error || !v.data)
    return (
      <AuthCard title="Confirm your email">
        <Alert>{v.error}</Alert>
        <p>
          <Link href="/login">Sign in</Link>
        </p>
      </AuthCard>
    );
  const d = v.data;
  const sub = d.team_name
    ? `${d.invited_by ?? 'A team owner'} invited ${d.email} to join ${d.team_name}.`
    : `Confirm ${d.email}.`;
  return (
    <AuthCard title="Confirm your email" sub={sub}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          confirm.run(formData(e));
        }}
      >
        <Field label="Email" name="email" type="email" autocomplete="username" value={d.email} readOnly />
        {d.password_required && (
          <Field
            label="Choose a password"
            name="password"
            type="password"
            required
            minLength={10}
            autocomplete="new-password"
            hint="At least 10 characters."
            autoFocus
          />
        )}
        {confirm.error && <Alert>{confirm.error}</Alert>}
        <button class="btn primary wide" disabled={confirm.busy}>
          {d.team_name ? `Confirm and join ${d.team_name}` : 'Confirm'}
        </button>
      </form>
      <p class="small">Not you, or not expecting this? Close this page: nothing changes until you confirm.</p>
    </AuthCard>
  );
}
