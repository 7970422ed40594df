// Signed-out screens: first-run setup, sign-in (password, then the second factor when TOTP is on;
// OAuth buttons when configured), forgotten password, reset link.
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { Alert } from '../components/ui';
import { AuthCard, Field, formData } from '../components/AuthCard';
import { Link } from '../components/Link';
import { useAction, useLoad } from '../hooks';
import { current, navigate } from '../router';
import { useSession } from '../session';

export function Setup() {
  const { reload } = useSession();
  const a = useAction(async (d: Record<string, string>) => {
    if (d.password !== d.confirm) throw new Error('The two passwords differ.');
    await post('/dashboard-api/setup', d);
    await reload();
    navigate('/domains', { replace: true });
  });
  return (
    <AuthCard
      title="Welcome to Mailroom"
      sub="No account exists yet. Create the owner of this installation: you can invite your team afterwards."
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          a.run(formData(e));
        }}
      >
        <Field label="Your name" name="name" autocomplete="name" />
        <Field label="Email" name="email" type="email" required autocomplete="username" />
        <Field
          label="Password"
          name="password"
          type="password"
          required
          minLength={10}
          autocomplete="new-password"
          hint="At least 10 characters."
        />
        <Field
          label="Repeat the password"
          name="confirm"
          type="password"
          required
          minLength={10}
          autocomplete="new-password"
        />
        {a.error && <Alert>{a.error}</Alert>}
        <button class="btn primary wide" disabled={a.busy}>
          {a.busy ? 'Creating…' : 'Create owner account'}
        </button>
      </form>
    </AuthCard>
  );
}

export function SignIn({ query }: { query: URLSearchParams }) {
  const { state, reload } = useSession();
  const [recovery, setRecovery] = useState(false);
  const done = async () => {
    await reload();
    if (current().path !== '/oauth/authorize') navigate('/emails', { replace: true }); // a pending OAuth consent stays
  };
  const login = useAction(async (d: Record<string, string>) => {
    const r = await post<{ mfa_required: boolean }>('/dashboard-api/login', d);
    if (r.mfa_required) await reload();
    else await done();
  });
  const mfa = useAction(async (d: Record<string, string>) => {
    await post('/dashboard-api/login/mfa', d);
    await done();
  });
  const error = query.get('error');
  if (state.mfa_pending) {
    return (
      <AuthCard
        title="Two-factor authentication"
        sub={
          recovery
            ? 'Enter one of your recovery codes. Each works once.'
            : 'Enter the 6-digit code from your authenticator app.'
        }
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            mfa.run(formData(e));
          }}
        >
          {recovery ? (
            <Field label="Recovery code" name="code" required autocomplete="off" autoFocus />
          ) : (
            <Field
              label="Authentication code"
              name="code"
              required
              inputMode="numeric"
              pattern="[0-9 ]{6,7}"
              autocomplete="one-time-code"
              autoFocus
            />
          )}
          {mfa.error && <Alert>{mfa.error}</Alert>}
          <button class="btn primary wide" disabled={mfa.busy}>
            {mfa.busy ? 'Checking…' : 'Verify'}
          </button>
        </form>
        <p class="small">
          <button type="button" class="linkish" onClick={() => setRecovery(!recovery)}>
            {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
          </button>
        </p>
        <p class="small">
          <button
            type="button"
            class="linkish"
            onClick={async () => {
              await post('/dashboard-api/logout').catch(() => undefined);
              await reload();
            }}
          >
            Start over
          </button>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Sign in">
      {error && <Alert>{error}</Alert>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          login.run(formData(e));
        }}
      >
        <Field label="Email" name="email" type="email" required autocomplete="username" autoFocus />
        <Field label="Password" name="password" type="password" required autocomplete="current-password" />
        {login.error && <Alert>{login.error}</Alert>}
        <button class="btn primary wide" disabled={login.busy}>
          {login.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {state.oauth.length > 0 && (
        <div class="oauth">
          <p class="muted small divider">or</p>
          {state.oauth.map((p) => (
            <a key={p} class="btn wide" href={`/dashboard-api/oauth/${p}/start`}>
              Continue with {p === 'github' ? 'GitHub' : 'Google'}
            </a>
          ))}
        </div>
      )}
      <p class="small">
        <Link href="/forgot">Forgot your password?</Link>
      </p>
    </AuthCard>
  );
}

export function Forgot() {
  const { state } = useSession();
  const [sent, setSent] = useState<string>();
  const a = useAction(async (d: Record<string, string>) =>
    setSent((await post<{ message: string }>('/dashboard-api/password/forgot', d)).message),
  );
  return (
    <AuthCard title="Reset your password">
      {!state.password_reset ? (
        <Alert kind="warn">
          Password reset by email is not set up on this server: the operator sets <code>MAILROOM_DASHBOARD_FROM</code>{' '}
          to an address on a verified domain. Until then, ask a team owner or the operator for help.
        </Alert>
      ) : sent ? (
        <Alert kind="ok">{sent}</Alert>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            a.run(formData(e));
          }}
        >
          <Field label="Email" name="email" type="email" required autocomplete="username" />
          {a.error && <Alert>{a.error}</Alert>}
          <button class="btn primary wide" disabled={a.busy}>
            Send a reset link
          </button>
        </form>
      )}
      <p class="small">
        <Link href="/login">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

export function Reset({ token }: { token: string }) {
  const check = useLoad(
    () => get<{ valid: boolean }>(`/dashboard-api/password/reset/${encodeURIComponent(token)}`),
    [token],
  );
  const [done, setDone] = useState(false);
  const a = useAction(async (d: Record<string, string>) => {
    if (d.password !== d.confirm) throw new Error('The two passwords differ.');
    await post('/dashboard-api/password/reset', { token, password: d.password });
    setDone(true);
  });
  return (
    <AuthCard title="Choose a new password">
      {done ? (
        <Alert kind="ok">
          Your password is changed and every session was signed out. <Link href="/login">Sign in</Link>.
        </Alert>
      ) : check.data && !check.data.valid ? (
        <Alert>
          This reset link is not valid any more. <Link href="/forgot">Ask for a new one</Link>.
        </Alert>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            a.run(formData(e));
          }}
        >
          <Field
            label="New password"
            name="password"
            type="password"
            required
            minLength={10}
            autocomplete="new-password"
            hint="At least 10 characters."
          />
          <Field
            label="Repeat the password"
            name="confirm"
            type="password"
            required
            minLength={10}
            autocomplete="new-password"
          />
          {a.error && <Alert>{a.error}</Alert>}
          <button class="btn primary wide" disabled={a.busy}>
            Set password
          </button>
        </form>
      )}
    </AuthCard>
  );
}
