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
import { Invite, Verify } from './pages/Invite';
import { Forgot, Reset, Setup, SignIn } from './pages/SignIn';
import './styles.css';
import './audiences.css';
import './automations.css';

applyTheme(loadTheme());

// Every signed-in page is loaded on its first visit (a chunk of its own): the first screen loads only
// the shell, the sign-in screens and the page asked for.
const AccountPage = lazyPage(() => import('./pages/Account').then((m) => m.AccountPage));
const ApiKeys = lazyPage(() => import('./pages/ApiKeys').then((m) => m.ApiKeys));
const AutomationDetail = lazyPage(() => import('./pages/AutomationDetail').then((m) => m.AutomationDetail));
const Automations = lazyPage(() => import('./pages/Automations').then((m) => m.Automations));
const AutomationRun = lazyPage(() => import('./pages/AutomationRun').then((m) => m.AutomationRun));
const ContactDetail = lazyPage(() => import('./pages/ContactDetail').then((m) => m.ContactDetail));
const Contacts = lazyPage(() => import('./pages/Contacts').then((m) => m.Contacts));
const DomainDetail = lazyPage(() => import('./pages/Domains').then((m) => m.DomainDetail));
const Domains = lazyPage(() => import('./pages/Domains').then((m) => m.Domains));
const Deliverability = lazyPage(() => import('./pages/Deliverability').then((m) => m.Deliverability));
const EmailDetail = lazyPage(() => import('./pages/EmailDetail').then((m) => m.EmailDetail));
const Events = lazyPage(() => import('./pages/Events').then((m) => m.Events));
const Emails = lazyPage(() => import('./pages/Emails').then((m) => m.Emails));
const ImportDetail = lazyPage(() => import('./pages/ImportDetail').then((m) => m.ImportDetail));
const Imports = lazyPage(() => import('./pages/Imports').then((m) => m.Imports));
const LogDetail = lazyPage(() => import('./pages/Logs').then((m) => m.LogDetail));
const Logs = lazyPage(() => import('./pages/Logs').then((m) => m.Logs));
const AuditLog = lazyPage(() => import('./pages/AuditLog').then((m) => m.AuditLog));
const Integrations = lazyPage(() => import('./pages/Integrations').then((m) => m.Integrations));
const Mailbox = lazyPage(() => import('./pages/Mailbox').then((m) => m.Mailbox));
const OAuthConsent = lazyPage(() => import('./pages/OAuthConsent').then((m) => m.OAuthConsent));
const Metrics = lazyPage(() => import('./pages/Metrics').then((m) => m.Metrics));
const ReceivedDetail = lazyPage(() => import('./pages/Receiving').then((m) => m.ReceivedDetail));
const Receiving = lazyPage(() => import('./pages/Receiving').then((m) => m.Receiving));
const SegmentDetail = lazyPage(() => import('./pages/Segments').then((m) => m.SegmentDetail));
const Segments = lazyPage(() => import('./pages/Segments').then((m) => m.Segments));
const Suppressions = lazyPage(() => import('./pages/Suppressions').then((m) => m.Suppressions));
const Privacy = lazyPage(() => import('./pages/Privacy').then((m) => m.Privacy));
const Team = lazyPage(() => import('./pages/Team').then((m) => m.Team));
const TemplateDetail = lazyPage(() => import('./pages/Templates').then((m) => m.TemplateDetail));
const Templates = lazyPage(() => import('./pages/Templates').then((m) => m.Templates));
const BroadcastDetail = lazyPage(() => import('./pages/Broadcasts').then((m) => m.BroadcastDetail));
const Broadcasts = lazyPage(() => import('./pages/Broadcasts').then((m) => m.Broadcasts));
const Topics = lazyPage(() => import('./pages/Topics').then((m) => m.Topics));
const WebhookDetail = lazyPage(() => import('./pages/Webhooks').then((m) => m.WebhookDetail));
const Webhooks = lazyPage(() => import('./pages/Webhooks').then((m) => m.Webhooks));
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
