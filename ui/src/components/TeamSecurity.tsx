// The team's security settings (PATCH /dashboard-api/team): require two-factor (owners), session
// lifetime and idle timeout, allowed sign-in methods (owners and admins). Members see the settings
// read-only. A refusal (out of range, your own sign-in method removed) shows the API's words.
import { useEffect, useState } from 'preact/hooks';
import { patch } from '../api';
import { useAction } from '../hooks';
import { Alert } from './ui';

export interface Security {
  require_mfa: boolean;
  session_lifetime_hours: number | null;
  session_idle_minutes: number;
  sign_in_methods: string[];
}

const METHODS: [string, string][] = [
  ['password', 'Password'],
  ['google', 'Google'],
  ['github', 'GitHub'],
];

export function TeamSecurity({
  security,
  role,
  onChanged,
}: {
  security: Security;
  role: 'owner' | 'admin' | 'member' | undefined;
  onChanged: () => void;
}) {
  const edit = role === 'owner' || role === 'admin';
  const [life, setLife] = useState('');
  const [idle, setIdle] = useState('');
  const [methods, setMethods] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    setLife(security.session_lifetime_hours == null ? '' : String(security.session_lifetime_hours));
    setIdle(String(security.session_idle_minutes));
    setMethods(security.sign_in_methods);
  }, [security]);
  const save = useAction(async (body: Record<string, unknown>) => {
    setSaved(false);
    await patch('/dashboard-api/team', body);
    setSaved(true);
    onChanged();
  });
  const num = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s) : s);
  return (
    <section class="card" aria-labelledby="security-h">
      <h2 id="security-h">Security</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={security.require_mfa}
          disabled={role !== 'owner' || save.busy}
          onChange={(e) => save.run({ require_mfa: (e.target as HTMLInputElement).checked })}
        />
        Require two-factor authentication for every member
      </label>
      <p class="muted small">
        {role === 'owner'
          ? 'Members without it can only set it up until they do. Turn it on for your own account first.'
          : 'Only owners change this.'}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          // Only what changed: each setting saved is an audit entry.
          const body: Record<string, unknown> = {};
          const l = life.trim() === '' ? null : num(life);
          if (l !== security.session_lifetime_hours) body.session_lifetime_hours = l;
          if (num(idle) !== security.session_idle_minutes) body.session_idle_minutes = num(idle);
          if ([...methods].sort().join() !== [...security.sign_in_methods].sort().join())
            body.sign_in_methods = methods;
          if (Object.keys(body).length) save.run(body);
          else setSaved(true);
        }}
      >
        <div class="inline-form">
          <label class="field-inline">
            Session lifetime (hours)
            <input
              type="text"
              inputMode="numeric"
              style={{ width: '7em' }}
              value={life}
              placeholder="none"
              disabled={!edit}
              onInput={(e) => setLife((e.target as HTMLInputElement).value)}
            />
          </label>
          <label class="field-inline">
            Idle timeout (minutes)
            <input
              type="text"
              inputMode="numeric"
              style={{ width: '7em' }}
              value={idle}
              disabled={!edit}
              onInput={(e) => setIdle((e.target as HTMLInputElement).value)}
            />
          </label>
        </div>
        <fieldset class="inline-form" disabled={!edit}>
          <legend>Allowed sign-in methods</legend>
          {METHODS.map(([m, name]) => (
            <label class="field-inline" key={m}>
              <input
                type="checkbox"
                checked={methods.includes(m)}
                onChange={(e) =>
                  setMethods((e.target as HTMLInputElement).checked ? [...methods, m] : methods.filter((x) => x !== m))
                }
              />
              {name}
            </label>
          ))}
        </fieldset>
        <p class="muted small">
          Sessions older than the lifetime, idle longer than the timeout, or signed in a way no longer allowed end on
          their next request. Empty lifetime: no limit.
        </p>
        {edit && (
          <div class="row">
            <button class="btn primary" disabled={save.busy}>
              Save security settings
            </button>
            {saved && !save.error && <span role="status">Saved.</span>}
          </div>
        )}
      </form>
      {save.error && <Alert>{save.error}</Alert>}
    </section>
  );
}
