// The signed-in shell: navigation (a sidebar at desktop width, a menu on a phone), team switcher,
// theme toggle, account and sign-out, and the capture-mode banner. Skip link first for keyboard users.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api';
import { navigate } from '../router';
import { useSession } from '../session';
import { applyTheme, loadTheme, nextTheme } from '../theme';
import { Link } from './Link';
import { ReputationBanner } from './Reputation';

const NAV: [string, string][] = [
  ['/emails', 'Emails'],
  ['/receiving', 'Receiving'],
  ['/inboxes', 'Inboxes'],
  ['/metrics', 'Metrics'],
  ['/domains', 'Domains'],
  ['/api-keys', 'API keys'],
  ['/integrations', 'Integrations'],
  ['/webhooks', 'Webhooks'],
  ['/logs', 'Logs'],
  ['/audit-log', 'Audit log'],
  ['/privacy', 'Privacy'],
  ['/suppressions', 'Suppressions'],
  ['/contacts', 'Contacts'],
  ['/segments', 'Segments'],
  ['/topics', 'Topics'],
  ['/templates', 'Templates'],
  ['/broadcasts', 'Broadcasts'],
  ['/automations', 'Automations'],
  ['/events', 'Events'],
];

export function ThemeToggle() {
  const [theme, setTheme] = useState(loadTheme);
  const change = () => {
    const t = nextTheme(theme);
    applyTheme(t);
    setTheme(t);
  };
  return (
    <button
      type="button"
      class="btn ghost sm"
      onClick={change}
      aria-label={`Theme: ${theme}. Change theme`}
      title="Change theme"
    >
      {theme === 'dark' ? '☾ Dark' : theme === 'light' ? '☀ Light' : '◐ Auto'}
    </button>
  );
}

/** On every page in capture mode: otherwise only the Mailbox would say that nothing is delivered. */
function CaptureBanner() {
  return (
    <div class="alert warn capture-banner" role="note" data-testid="capture-banner">
      <strong>Capture mode</strong> (<code>MAILROOM_DELIVERY_MODE=capture</code>): nothing leaves this machine. Every
      email is kept in the <Link href="/mailbox">Mailbox</Link> instead of being delivered, and domains are not checked
      in DNS.
    </div>
  );
}

export function Layout({ path, children }: { path: string; children: ComponentChildren }) {
  const { state, reload } = useSession();
  const [open, setOpen] = useState(false);
  // After a client-side navigation, focus goes to the new page's heading (once it has rendered),
  // so keyboard and screen-reader users start on the page, not on the link they left.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    let tries = 0;
    const timer = setInterval(() => {
      const h1 = document.querySelector<HTMLElement>('main#main h1');
      if (h1 || ++tries > 20) {
        clearInterval(timer);
        const target = h1 ?? document.getElementById('main');
        if (h1 && !h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
        target?.focus({ preventScroll: true });
      }
    }, 50);
    return () => clearInterval(timer);
  }, [path]);
  const nav = [
    ...NAV,
    ...(state.delivery_mode === 'capture' ? [['/mailbox', 'Mailbox'] as [string, string]] : []),
    ['/team', 'Team'] as [string, string],
  ];
  const switchTeam = async (id: string) => {
    await post('/dashboard-api/teams/switch', { team_id: id });
    await reload();
    navigate('/emails');
  };
  const signOut = async () => {
    await post('/dashboard-api/logout').catch(() => undefined);
    await reload();
    navigate('/login', { replace: true });
  };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <aside class={`side${open ? ' open' : ''}`}>
        <div class="brand">
          <Link href="/emails" class="logo">
            <img src="/favicon.svg" alt="" width={24} height={24} /> Mailroom
          </Link>
          <button
            type="button"
            class="btn ghost sm menu"
            aria-expanded={open}
            aria-controls="nav"
            onClick={() => setOpen(!open)}
          >
            Menu
          </button>
        </div>
        <nav id="nav" aria-label="Main">
          <ul>
            {nav.map(([href, text]) => (
              <li key={href}>
                <Link
                  href={href}
                  aria-current={path === href || path.startsWith(href + '/') ? 'page' : undefined}
                  onClick={() => setOpen(false)}
                >
                  {text}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="side-foot">
          {state.teams && state.teams.length > 1 ? (
            <label class="team-switch">
              <span class="muted small">Team</span>
              <select value={state.team?.id} onChange={(e) => switchTeam((e.target as HTMLSelectElement).value)}>
                {state.teams.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <p class="muted small">
              Team: <strong>{state.team?.name}</strong>
            </p>
          )}
          <p class="small user">
            <Link href="/account">{state.user?.email}</Link>
          </p>
          <div class="row">
            <ThemeToggle />
            <button type="button" class="btn ghost sm" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        {state.delivery_mode === 'capture' && <CaptureBanner />}
        <ReputationBanner path={path} />
        {children}
      </main>
    </div>
  );
}
