// The signed-in user's security: two-factor authentication (TOTP with a QR code, recovery codes),
// password, linked providers, sessions, and signing out everywhere.
import { useState } from 'preact/hooks';
import qrcode from 'qrcode-generator';
import { get, post } from '../api';
import { Alert, Copy, Loading, PageHead } from '../components/ui';
import { Field, formData } from '../components/AuthCard';
import { ago } from '../format';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { useSession } from '../session';

interface Account {
  email: string;
  totp_enabled: boolean;
  recovery_codes_left: number;
  oauth_accounts: { provider: string; email: string }[];
  sessions: { id: string; ip: string | null; user_agent: string | null; last_seen_at: string; current: boolean }[];
}

function Qr({ text }: { text: string }) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${n + 8} ${n + 8}`}
      width={200}
      height={200}
      role="img"
      aria-label="QR code for your authenticator app"
    >
      <rect width="100%" height="100%" fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div class="card highlight" aria-live="polite">
      <h3>Recovery codes</h3>
      <p>Each code signs you in once if you lose your device. Store them somewhere safe: they are not shown again.</p>
      <ul class="codes mono" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <Copy text={codes.join('\n')} label="Copy codes" />
    </div>
  );
}

export function AccountPage() {
  const { state, reload } = useSession();
  const acc = useLoad(() => get<Account>('/dashboard-api/account'), []);
  const [enrol, setEnrol] = useState<{ secret: string; otpauth_uri: string }>();
  const [codes, setCodes] = useState<string[]>();
  const begin = useAction(async () => setEnrol(await post('/dashboard-api/account/totp/setup')));
  const enable = useAction(async (d: Record<string, string>) => {
    const r = await post<{ recovery_codes: string[] }>('/dashboard-api/account/totp/enable', d);
    setCodes(r.recovery_codes);
    setEnrol(undefined);
    acc.reload();
    await reload();
  });
  const disable = useAction(async (d: Record<string, string>) => {
    await post('/dashboard-api/account/totp/disable', d);
    acc.reload();
    await reload();
  });
  const renew = useAction(async (d: Record<string, string>) => {
    setCodes((await post<{ recovery_codes: string[] }>('/dashboard-api/account/recovery-codes', d)).recovery_codes);
    acc.reload();
  });
  const [pwDone, setPwDone] = useState(false);
  const password = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    if (d.password !== d.confirm) throw new Error('The two new passwords differ.');
    await post('/dashboard-api/account/password', d);
    form.reset();
    setPwDone(true);
    acc.reload();
  });
  const everywhere = useAction(async () => {
    await post('/dashboard-api/logout-all');
    await reload();
    navigate('/login', { replace: true });
  });
  if (!acc.data) return acc.error ? <Alert>{acc.error}</Alert> : <Loading />;
  const a = acc.data;
  return (
    <>
      <PageHead title="Account" sub={a.email} />
      {state.mfa_setup_required && (
        <Alert kind="warn">Your team requires two-factor authentication. Set it up below to continue.</Alert>
      )}
      <section class="card">
        <h2>Two-factor authentication</h2>
        {codes && <RecoveryCodes codes={codes} />}
        {a.totp_enabled ? (
          <>
            <p>
              On. {a.recovery_codes_left} recovery code{a.recovery_codes_left === 1 ? '' : 's'} left.
            </p>
            <form
              class="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                const sub = (e as SubmitEvent).submitter as HTMLButtonElement | null;
                (sub?.value === 'off' ? disable : renew).run(formData(e));
              }}
            >
              <label class="field-inline">
                Current code <input name="code" required inputMode="numeric" autocomplete="one-time-code" size={8} />
              </label>
              <button class="btn" value="renew">
                New recovery codes
              </button>
              <button class="btn bad ghost" value="off">
                Turn off
              </button>
            </form>
            {(disable.error || renew.error) && <Alert>{disable.error ?? renew.error}</Alert>}
          </>
        ) : enrol ? (
          <div class="enrol">
            <Qr text={enrol.otpauth_uri} />
            <div>
              <ol>
                <li>Scan the QR code with an authenticator app (or type the key below).</li>
                <li>Enter the 6-digit code it shows.</li>
              </ol>
              <p class="mono small" data-testid="totp-secret">
                {enrol.secret.replace(/(.{4})/g, '$1 ').trim()}
              </p>
              <Copy text={enrol.secret} label="Copy key" small />
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  enable.run(formData(e));
                }}
              >
                <Field
                  label="Code from the app"
                  name="code"
                  required
                  inputMode="numeric"
                  autocomplete="one-time-code"
                  pattern="[0-9 ]{6,7}"
                />
                {enable.error && <Alert>{enable.error}</Alert>}
                <button class="btn primary" disabled={enable.busy}>
                  Turn on
                </button>
              </form>
            </div>
          </div>
        ) : (
          <>
            <p>Off. With it on, signing in also asks for a code from an app on your phone.</p>
            <button class="btn primary" onClick={() => begin.run()}>
              Set up two-factor authentication
            </button>
            {begin.error && <Alert>{begin.error}</Alert>}
          </>
        )}
      </section>
      <section class="card">
        <h2>Password</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            password.run(e.currentTarget as HTMLFormElement);
          }}
          class="narrow"
        >
          <Field label="Current password" name="current" type="password" autocomplete="current-password" />
          <Field
            label="New password"
            name="password"
            type="password"
            required
            minLength={10}
            autocomplete="new-password"
          />
          <Field
            label="Repeat the new password"
            name="confirm"
            type="password"
            required
            minLength={10}
            autocomplete="new-password"
          />
          {password.error && <Alert>{password.error}</Alert>}
          {pwDone && <Alert kind="ok">Password changed. Your other sessions were signed out.</Alert>}
          <button class="btn">Change password</button>
        </form>
      </section>
      {a.oauth_accounts.length > 0 && (
        <section class="card">
          <h2>Linked sign-in</h2>
          <ul class="plain">
            {a.oauth_accounts.map((o) => (
              <li key={o.provider}>
                {o.provider}: {o.email}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section class="card">
        <h2>Sessions</h2>
        <ul class="plain">
          {a.sessions.map((s) => (
            <li key={s.id}>
              {s.current ? <strong>This browser</strong> : (s.user_agent?.slice(0, 60) ?? 'Unknown browser')} ·{' '}
              {s.ip ?? '?'} · active {ago(s.last_seen_at)}
            </li>
          ))}
        </ul>
        <button class="btn bad ghost" onClick={() => everywhere.run()}>
          Sign out everywhere
        </button>
      </section>
    </>
  );
}
