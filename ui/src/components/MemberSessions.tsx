// A member's dashboard sessions in this team (GET/DELETE /dashboard-api/team/members/:id/sessions):
// when and where each started and was last seen, ended one by one or all at once. Owners and
// admins choose any member (an owner's sessions only owners end); a member sees only their own.
import { useState } from 'preact/hooks';
import { del, get, type List } from '../api';
import { ago, fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { Alert, Badge, ErrorRetry, Loading } from './ui';

interface Session {
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}

export function MemberSessions({
  members,
  me,
  manage,
}: {
  members: { user_id: string; email: string }[];
  me: string;
  manage: boolean;
}) {
  const choices = manage ? members : members.filter((m) => m.user_id === me);
  const [userId, setUserId] = useState(me);
  const who = choices.find((m) => m.user_id === userId)?.email ?? '';
  const sessions = useLoad(
    () => get<List<Session>>(`/dashboard-api/team/members/${encodeURIComponent(userId)}/sessions`),
    [userId],
  );
  const end = useAction(async (sessionId: string | null) => {
    const what = sessionId ? 'this session' : `every session of ${who}`;
    if (!confirm(`End ${what}? ${sessionId ? 'It is' : 'They are'} signed out at the next request.`)) return;
    await del(`/dashboard-api/team/members/${encodeURIComponent(userId)}/sessions${sessionId ? `/${sessionId}` : ''}`);
    sessions.reload();
  });
  return (
    <section class="card" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      <div class="inline-form">
        {choices.length > 1 && (
          <label class="field-inline">
            Member
            <select value={userId} onChange={(e) => setUserId((e.target as HTMLSelectElement).value)}>
              {choices.map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.email}
                </option>
              ))}
            </select>
          </label>
        )}
        {sessions.data && sessions.data.data.length > 0 && (
          <button class="btn ghost sm bad" disabled={end.busy} onClick={() => end.run(null)}>
            End all sessions of {who}
          </button>
        )}
      </div>
      {end.error && <Alert>{end.error}</Alert>}
      {sessions.error && <ErrorRetry error={sessions.error} status={sessions.errorStatus} retry={sessions.reload} />}
      {!sessions.data ? (
        sessions.error ? null : (
          <Loading />
        )
      ) : sessions.data.data.length === 0 ? (
        <p class="muted">{who} has no open sessions.</p>
      ) : (
        <div class="table-wrap">
          <table class="list" aria-label={`Sessions of ${who}`}>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Last seen</th>
                <th scope="col">From</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.data.map((s) => (
                <tr key={s.id} data-id={s.id}>
                  <td title={fmtDate(s.created_at)}>
                    {ago(s.created_at)} {s.current && <Badge status="info" text="this session" />}
                  </td>
                  <td title={fmtDate(s.last_seen_at)}>{ago(s.last_seen_at)}</td>
                  <td>
                    <div class="mono small">{s.ip ?? '—'}</div>
                    <div class="muted small">{s.user_agent ?? ''}</div>
                  </td>
                  <td class="right">
                    <button
                      class="btn ghost sm bad"
                      disabled={end.busy}
                      aria-label={`End session ${s.id}`}
                      onClick={() => end.run(s.id)}
                    >
                      End
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
