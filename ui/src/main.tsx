// The dashboard SPA: loads the session state, then shows the signed-out screens (setup, sign-in,
// MFA, reset, invite) or the signed-in shell with the page for the current client route.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, setCsrf, SIGNED_OUT_EVENT } from './api';
import { Layout } from './components/Layout';
import { Empty, Loading, PageHead } from './components/ui';
import { Link } from './components/Link';
import { lazyPage } from './components/Lazy';
import { current, match, navigate, useRoute } from './router';
import { SessionContext, type DashState } from './session';
import { applyTheme, loadTheme } from './theme';
import { AccountPage } from './pages/Account';
import { ApiKeys } from './pages/ApiKeys';
import { AutomationDetail, Automations } from './pages/Automations';
import { AutomationRun } from './pages/AutomationRun';
import { ContactDetail } from './pages/ContactDetail';
import { Contacts } from './pages/Contacts';
import { DomainDetail, Domains } from './pages/Domains';
import { Deliverability } from './pages/Deliverability';
import { EmailDetail } from './pages/EmailDetail';
import { Events } from './pages/Events';
import { Emails } from './pages/Emails';
import { ImportDetail } from './pages/ImportDetail';
import { Imports } from './pages/Imports';
import { Invite, Verify } from './pages/Invite';
import { LogDetail, Logs } from './pages/Logs';
import { AuditLog } from './pages/AuditLog';
import { Integrations } from './pages/Integrations';
import { Mailbox } from './pages/Mailbox';
import { OAuthConsent } from './pages/OAuthConsent';
import { Metrics } from './pages/Metrics';
import { ReceivedDetail, Receiving } from './pages/Receiving';
import { Forgot, Reset, Setup, SignIn } from './pages/SignIn';
import { SegmentDetail, Segments } from './pages/Segments';
import { Suppressions } from './pages/Suppressions';
import { Privacy } from './pages/Privacy';
import { Team } from './pages/Team';
import { TemplateDetail, Templates } from './pages/Templates';
import { BroadcastDetail, Broadcasts } from './pages/Broadcasts';
import { Topics } from './pages/Topics';
import { WebhookDetail, Webhooks } from './pages/Webhooks';
import './styles.css';
import './audiences.css';
import './automations.css';

applyTheme(loadTheme());

const InboxesPage = lazyPage(() => import('./pages/inboxes/index').then((m) => m.InboxesPage));

type Page = [string, string, (p: Record<string, string>, q: URLSearchParams) => preact.JSX.Element];
const PAGES: Page[] = [
  ['/emails', 'Emails', (_p, q) => <Emails query={q} />],
  ['/emails/:id', 'Email', (p) => <EmailDetail id={p.id} />],
  ['/receiving', 'Receiving', () => <Receiving />],
  ['/receiving/:id', 'Received email', (p) => <ReceivedDetail id={p.id} />],
  ['/inboxes', 'Inboxes', (_p, q) => <InboxesPage query={q} />],
  ['/inboxes/:inbox', 'Inbox', (p, q) => <InboxesPage inbox={p.inbox} query={q} />],
  ['/metrics', 'Metrics', (_p, q) => <Metrics query={q} />],
  ['/domains', 'Domains', () => <Domains />],
  ['/domains/:id', 'Domain', (p) => <DomainDetail id={p.id} />],
  ['/domains/:id/deliverability', 'Deliverability', (p) => <Deliverability id={p.id} />],
  ['/api-keys', 'API keys', () => <ApiKeys />],
  ['/integrations', 'Integrations', () => <Integrations />],
  ['/webhooks', 'Webhooks', () => <Webhooks />],
  ['/webhooks/:id', 'Webhook', (p) => <WebhookDetail id={p.id} />],
  ['/logs', 'Logs', (_p, q) => <Logs query={q} />],
  ['/logs/:id', 'Log', (p) => <LogDetail id={p.id} />],
  ['/audit-log', 'Audit log', (_p, q) => <AuditLog query={q} />],
  ['/privacy', 'Privacy', () => <Privacy />],
  ['/suppressions', 'Suppressions', () => <Suppressions />],
  ['/contacts', 'Contacts', (_p, q) => <Contacts query={q} />],
  ['/contacts/imports', 'Imports', () => <Imports />], // before /contacts/:id, which would take "imports" for an id
  ['/contacts/imports/:id', 'Import', (p) => <ImportDetail id={p.id} />],
  ['/contacts/:id', 'Contact', (p) => <ContactDetail id={p.id} />],
  ['/segments', 'Segments', () => <Segments />],
  ['/segments/:id', 'Segment', (p) => <SegmentDetail id={p.id} />],
  ['/topics', 'Topics', () => <Topics />],
  ['/templates', 'Templates', () => <Templates />],
  ['/templates/:id', 'Template', (p) => <TemplateDetail id={p.id} />],
  ['/broadcasts', 'Broadcasts', () => <Broadcasts />],
  ['/broadcasts/:id', 'Broadcast', (p) => <BroadcastDetail id={p.id} />],
  ['/automations', 'Automations', () => <Automations />],
  ['/automations/:id', 'Automation', (p) => <AutomationDetail id={p.id} />],
  ['/automations/:id/runs/:run_id', 'Automation run', (p) => <AutomationRun id={p.id} runId={p.run_id} />],
  ['/events', 'Events', (_p, q) => <Events query={q} />],
  ['/mailbox', 'Mailbox', () => <Mailbox />],
  ['/team', 'Team', () => <Team />],
  ['/account', 'Account', () => <AccountPage />],
];

/**
 * Where a signed-in user lands without naming a page: the root and the signed-out screens they
 * just left (sign-in, forgot, reset). Any other unknown path is a page that does not exist, and
 * says so rather than silently showing another.
 */
const landing = (path: string) =>
  path === '/' || path === '/login' || path === '/forgot' || path === '/setup' || path.startsWith('/reset/');

function NotFound({ path }: { path: string }) {
  return (
    <>
      <PageHead title="Page not found" />
      <Empty title={`There is no page at /dashboard${path}`}>
        The link may be mistyped or out of date. <Link href="/emails">Go to Emails</Link>
      </Empty>
    </>
  );
}

function App() {
  const [state, setState] = useState<DashState>();
  const route = useRoute();
  const reload = async () => {
    const s = await get<DashState>('/dashboard-api/state');
    setCsrf(s.csrf);
    setState(s);
  };
  useEffect(() => {
    reload();
    const onOut = () => {
      reload();
    };
    window.addEventListener(SIGNED_OUT_EVENT, onOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onOut);
  }, []);
  const { path, query } = route;
  const invite = match('/invite/:token', path);
  const reset = match('/reset/:token', path);
  const verify = match('/verify/:token', path);
  // An OAuth authorization waits through sign-in (SignIn stays on this path) and has no shell around it.
  const consent = path === '/oauth/authorize';
  let title = 'Mailroom';
  let view: preact.JSX.Element;
  if (!state)
    view = (
      <main class="auth">
        <Loading />
      </main>
    );
  else if (invite) view = <Invite token={invite.token} />;
  else if (verify) view = <Verify token={verify.token} />;
  else if (!state.signed_in) {
    if (reset) view = <Reset token={reset.token} />;
    else if (state.setup_needed) view = <Setup />;
    else if (path === '/forgot' && !state.mfa_pending) view = <Forgot />;
    else view = <SignIn query={query} />;
    title = 'Sign in · Mailroom';
  } else if (consent && !state.mfa_setup_required) {
    view = <OAuthConsent query={query} />;
    title = 'Authorize · Mailroom';
  } else {
    const found = PAGES.map(([pattern, name, fn]) => ({ name, fn, params: match(pattern, path) })).find(
      (p) => p.params,
    );
    if ((!found && landing(path)) || (state.mfa_setup_required && path !== '/account')) {
      view = <Loading />; // on its way to the right page (the effect below)
    } else if (!found) {
      title = 'Not found · Mailroom';
      view = (
        <Layout path={path}>
          <NotFound path={path} />
        </Layout>
      );
    } else {
      title = `${found.name} · Mailroom`;
      view = <Layout path={path}>{found.fn(found.params!, query)}</Layout>;
    }
  }
  useEffect(() => {
    document.title = title;
    if (!state?.signed_in) return;
    const now = current().path; // not `path`: a navigation may have happened since this render
    if (state.mfa_setup_required && now !== '/account') navigate('/account', { replace: true });
    else if (landing(now)) navigate(state.setup_needed ? '/domains' : '/emails', { replace: true });
  }, [state, path, title]);
  return state ? <SessionContext.Provider value={{ state, reload }}>{view}</SessionContext.Provider> : view;
}

render(<App />, document.getElementById('app')!);
