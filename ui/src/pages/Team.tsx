// Team settings: members and roles (a role change asks first), invite links, the security settings
// (components/TeamSecurity.tsx) and members' sessions (components/MemberSessions.tsx), new team; switching teams is in the navigation. Reloads when the window regains
// focus, so an invite accepted meanwhile leaves the pending list.
import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { MemberSessions } from '../components/MemberSessions';
import { type Security, TeamSecurity } from '../components/TeamSecurity';
import { Alert, Badge, Copy, ErrorRetry, Loading, PageHead } from '../components/ui';
import { ago } from '../format';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface Member {
  user_id: string;
  email: string;
  name: string;
  role: string;
  totp_enabled: boolean;
  created_at: string;
}
interface Invite {
  id: string;
  role: string;
  email: string | null;
  expires_at: string;
  created_at: string;
}

interface Joining {
  email_confirmation: boolean;
  oauth: string[];
}

const PROVIDER_NAMES: Record<string, string> = { github: 'GitHub', google: 'Google' };

/** What an invitee will need to join, said before anyone is invited. */
function JoiningNote({ joining, handover }: { joining: Joining; handover: boolean }) {
  const providers = joining.oauth.map((p) => PROVIDER_NAMES[p] ?? p).join(' or ');
  if (handover)
    return (
      <p class="muted small" data-testid="joining">
        You get a link to hand over yourself. It sets the password for that address the first time it is opened, then
        signs them in to this team: no email from this server is needed.
      </p>
    );
  return (
    <p class="muted small" data-testid="joining">
      {joining.email_confirmation
        ? 'With the invite link they give their email and confirm it from an email this server sends, where they choose a password.'
        : `This server cannot send email (MAILROOM_DASHBOARD_FROM is not set), so an invite link alone does not let them create a password account.${providers ? '' : ' Check "One-time set-password link" instead.'}`}
      {providers ? ` They can also join with ${providers}.` : ''} Someone with an account here signs in and opens the
      link.
    </p>
  );
}

const ROLE_NAMES: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
const aRole = (r: string) => `${r === 'member' ? 'a' : 'an'} ${ROLE_NAMES[r] ?? r}`;
const ROLE_POWERS: Record<string, string> = {
  owner:
    'Owners can do everything, including removing other owners, changing roles and team security. Only another owner can undo this.',
  admin: 'Admins manage domains, keys, webhooks and members (but not owners).',
  member: 'Members can look at everything but change nothing.',
};

export function Team() {
  const { state, reload } = useSession();
  const edit = canEdit(state);
  const owner = state.team?.role === 'owner';
  const team = useLoad(
    () => get<{ members: Member[]; invites: Invite[]; joining?: Joining; security?: Security }>('/dashboard-api/team'),
    [state.team?.id],
  );
  const [link, setLink] = useState<{ url: string; handover?: string; email?: string }>();
  const [handoverOn, setHandover] = useState(false);
  const joining = team.data?.joining;
  const invite = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const r = await post<{ url: string; set_password_url?: string; email?: string }>('/dashboard-api/team/invites', {
      role: d.role,
      email: d.email || undefined,
      ...(handoverOn ? { handover: true } : {}),
    });
    setLink({ url: r.url, handover: r.set_password_url, email: r.email });
    form.reset();
    team.reload();
  });
  const act = useAction(async (fn: () => Promise<unknown>) => {
    await fn();
    team.reload();
    await reload();
  });
  const [change, setChange] = useState<{ m: Member; role: string }>();
  useEffect(() => {
    const onFocus = () => team.reload();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, []);
  const create = useAction(async (form: HTMLFormElement) => {
    await post('/dashboard-api/teams', { name: new FormData(form).get('name') });
    await reload();
    navigate('/domains');
  });
  return (
    <>
      <PageHead
        title={`Team: ${state.team?.name}`}
        sub={`You are ${state.team?.role === 'admin' ? 'an admin' : `the ${state.team?.role}`}. Owners and admins change things; members can look.`}
      />
      {act.error && <Alert>{act.error}</Alert>}
      {change && (
        <section class="card highlight" role="alertdialog" aria-labelledby="role-q" data-testid="role-confirm">
          <h2 id="role-q">
            Make {change.m.name || change.m.email} {aRole(change.role)}?
          </h2>
          <p>
            {change.m.email} is {aRole(change.m.role)} now. {ROLE_POWERS[change.role]}
          </p>
          <div class="row">
            <button
              class={`btn ${change.role === 'owner' ? 'bad' : 'primary'}`}
              disabled={act.busy}
              onClick={() => {
                const c = change;
                setChange(undefined);
                act.run(() => patch(`/dashboard-api/team/members/${c.m.user_id}`, { role: c.role }));
              }}
            >
              Make {ROLE_NAMES[change.role]}
            </button>
            <button class="btn ghost" onClick={() => setChange(undefined)}>
              Cancel
            </button>
          </div>
        </section>
      )}
      <section class="card">
        <h2>Members</h2>
        {team.error && <ErrorRetry error={team.error} status={team.errorStatus} retry={team.reload} />}
        {!team.data ? (
          team.error ? null : (
            <Loading />
          )
        ) : (
          <div class="table-wrap">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">Two-factor</th>
                  <th scope="col">Joined</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {team.data.members.map((m) => (
                  <tr key={m.user_id}>
                    <td>
                      {m.name ? (
                        <>
                          {m.name} <span class="muted small">{m.email}</span>
                        </>
                      ) : (
                        m.email
                      )}
                    </td>
                    <td>
                      {edit && m.user_id !== state.user?.id && (owner || m.role !== 'owner') ? (
                        <select
                          aria-label={`Role of ${m.email}`}
                          value={change?.m.user_id === m.user_id ? change.role : m.role}
                          onChange={(e) => {
                            const role = (e.target as HTMLSelectElement).value;
                            setChange(role === m.role ? undefined : { m, role });
                          }}
                        >
                          {(owner ? ['owner', 'admin', 'member'] : ['admin', 'member']).map((r) => (
                            <option key={r} value={r}>
                              {ROLE_NAMES[r]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <Badge status={m.role} />
                      )}
                    </td>
                    <td>
                      {m.totp_enabled ? <Badge status="enabled" text="on" /> : <Badge status="muted" text="off" />}
                    </td>
                    <td>{ago(m.created_at)}</td>
                    <td class="right">
                      {m.user_id === state.user?.id ? (
                        <button
                          class="btn ghost sm"
                          onClick={() =>
                            confirm('Leave this team?') &&
                            act.run(async () => {
                              await del(`/dashboard-api/team/members/${m.user_id}`);
                            })
                          }
                        >
                          Leave
                        </button>
                      ) : (
                        edit &&
                        (owner || m.role !== 'owner') && (
                          <button
                            class="btn ghost sm bad"
                            onClick={() =>
                              confirm(`Remove ${m.email}?`) &&
                              act.run(() => del(`/dashboard-api/team/members/${m.user_id}`))
                            }
                          >
                            Remove
                          </button>
                        )
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {edit && (
        <section class="card">
          <h2>Invite people</h2>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              invite.run(e.currentTarget as HTMLFormElement);
            }}
          >
            <label class="field-inline">
              Role{' '}
              <select name="role">
                <option value="member">Member (view)</option>
                <option value="admin">Admin (manage)</option>
              </select>
            </label>
            <label class="field-inline grow">
              {handoverOn ? 'Their email' : 'Only for'}{' '}
              <input
                name="email"
                type="email"
                required={handoverOn}
                placeholder={handoverOn ? 'their email' : 'optional: their email'}
              />
            </label>
            <label class="field-inline">
              <input type="checkbox" checked={handoverOn} onChange={(e) => setHandover(e.currentTarget.checked)} />{' '}
              One-time set-password link
            </label>
            <button class="btn primary">{handoverOn ? 'Create set-password link' : 'Create invite link'}</button>
          </form>
          {joining && <JoiningNote joining={joining} handover={handoverOn} />}
          {invite.error && <Alert>{invite.error}</Alert>}
          {link && !link.handover && (
            <>
              <div class="token" aria-live="polite">
                <code class="mono">{link.url}</code>
                <Copy text={link.url} />
              </div>
              <p class="muted small">Send this link yourself; it works once, for 7 days.</p>
            </>
          )}
          {link?.handover && (
            <>
              <div class="token" aria-live="polite" data-testid="set-password-link">
                <code class="mono">{link.handover}</code>
                <Copy text={link.handover} />
              </div>
              <p class="muted small">
                Hand this link to {link.email} yourself, in person or over a channel you trust: whoever opens it chooses
                the password of {link.email} and joins this team. It works once, for 7 days; revoke the invite below to
                cancel it.
              </p>
            </>
          )}
          {team.data && team.data.invites.length > 0 && (
            <ul class="plain" aria-label="Pending invites" data-testid="pending-invites">
              {team.data.invites.map((i) => (
                <li key={i.id}>
                  {ROLE_NAMES[i.role] ?? i.role} invite{i.email ? ` for ${i.email}` : ''} (pending), expires{' '}
                  {new Date(i.expires_at).toLocaleDateString()}{' '}
                  <button
                    class="btn ghost sm"
                    onClick={() => act.run(() => del(`/dashboard-api/team/invites/${i.id}`))}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {team.data?.security && (
        <TeamSecurity
          security={team.data.security}
          role={state.team?.role}
          onChanged={() => {
            team.reload();
            void reload();
          }}
        />
      )}
      {team.data && state.user && <MemberSessions members={team.data.members} me={state.user.id} manage={edit} />}
      <section class="card">
        <h2>New team</h2>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <label class="sr-only" for="team-name">
            Team name
          </label>
          <input id="team-name" name="name" required maxLength={100} placeholder="Team name" class="grow" />
          <button class="btn">Create team</button>
        </form>
        {create.error && <Alert>{create.error}</Alert>}
      </section>
    </>
  );
}
