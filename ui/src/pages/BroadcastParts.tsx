// Pieces of the Broadcasts pages: the template picker of the compose form, the metrics tiles with
// live progress, the preview as a chosen contact (rendered by the server's personalization, unsaved
// edits included) and the recipients table (by event type, paged by cursor).
import { useEffect, useState } from 'preact/hooks';
import { get, post, qs, type List } from '../api';
import { Alert, KV, Loading, PagedTable } from '../components/ui';
import { EmailPreview } from '../components/EmailPreview';
import { Link } from '../components/Link';
import { fmtDate, num } from '../format';
import { useLoad, usePaged } from '../hooks';
import { fillDocument, fillVariables, type TemplateVariable } from '../template-fill';
import type { EmailDocument } from '../components/EmailContent';

export interface Stats {
  recipients: number;
  queued: number;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  opened: number;
  clicked: number;
  unsubscribed: number;
  suppressed: number;
  failed: number;
  canceled: number;
  skipped: { unsubscribed: number; topic: number; suppressed: number };
}

interface TemplateItem {
  id: string;
  name: string;
  status: string;
}
interface Template {
  id: string;
  name: string;
  status: 'draft' | 'published';
  current_version_id: string;
  has_unpublished_versions: boolean;
}
interface Version {
  id: string;
  number: number;
  published: boolean;
  published_at: string | null;
  from: string | null;
  subject: string | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
  document?: EmailDocument | null;
}

/** What a template gives a new broadcast: its published content with its variables filled. */
export interface FromTemplate {
  id: string;
  from: string | null;
  subject: string | null;
  html: string;
  text: string | null;
  /** The published version's visual-editor document (variables filled), null for raw HTML. */
  document: EmailDocument | null;
  missing: string[];
}

/**
 * "Start with": blank, or one of the team's templates, found by name (the server searches them
 * all; 50 a page, more on request), with values for its variables. A broadcast is composed from
 * the template's PUBLISHED version, the one sends with the template use, never from its working
 * draft: unpublished changes are someone's work in progress. A template never published cannot
 * be chosen.
 */
export function TemplatePicker({ onChange }: { onChange: (t: FromTemplate | null) => void }) {
  const [search, setSearch] = useState('');
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const list = usePaged<TemplateItem>(
    (after) => `/templates${qs({ limit: 50, search: search || undefined, after })}`,
    `templates:${search}`,
  );
  const [id, setId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const tpl = useLoad(async () => {
    if (!id) return undefined;
    const t = await get<Template>(`/templates/${encodeURIComponent(id)}`);
    if (t.status !== 'published') return { t, v: undefined };
    const v = await get<Version>(
      `/templates/${encodeURIComponent(id)}/versions/${encodeURIComponent(t.current_version_id)}`,
    );
    return { t, v };
  }, [id]);
  const t = id && tpl.data?.t.id === id ? tpl.data : undefined;
  const v = t?.v;
  useEffect(() => {
    if (!t || !v) {
      onChange(null);
      return;
    }
    const missing = new Set<string>();
    const fill = (s: string, html: boolean) => fillVariables(s, v.variables, values, html, missing);
    onChange({
      id: t.t.id,
      from: v.from,
      subject: v.subject === null ? null : fill(v.subject, false),
      html: fill(v.html, true),
      text: v.text === null ? null : fill(v.text, false),
      document: v.document ? fillDocument(v.document, v.variables, values, missing) : null,
      missing: [...missing],
    });
  }, [t, values]);
  const chosen = list.rows.find((x) => x.id === id);
  return (
    <>
      <div class="field">
        <label for="bc-template-search">Find a template</label>
        <input
          id="bc-template-search"
          type="search"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          placeholder="Monthly"
        />
      </div>
      <div class="field">
        <label for="bc-template">Start with</label>
        <select
          id="bc-template"
          value={id}
          onChange={(e) => {
            setId(e.currentTarget.value);
            setValues({});
          }}
        >
          <option value="">A blank message</option>
          {id && !chosen && tpl.data?.t.id === id && <option value={id}>Template: {tpl.data.t.name}</option>}
          {list.rows.map((x) => (
            <option key={x.id} value={x.id} disabled={x.status !== 'published'}>
              Template: {x.name}
              {x.status !== 'published' ? ' (not published yet)' : ''}
            </option>
          ))}
        </select>
        <div class="muted" data-testid="template-count">
          {!list.loaded
            ? 'Loading templates…'
            : list.rows.length === 0
              ? search
                ? `No template's name contains "${search}".`
                : 'No templates yet.'
              : `${list.rows.length}${list.hasMore ? '+' : ''} template${list.rows.length === 1 ? '' : 's'}${search ? ` matching "${search}"` : ''}.`}{' '}
          {list.hasMore && (
            <button type="button" class="btn ghost sm" onClick={() => list.more()} disabled={list.busy}>
              More templates
            </button>
          )}
        </div>
      </div>
      {list.error && <Alert>{list.error}</Alert>}
      {tpl.error && <Alert>{tpl.error}</Alert>}
      {t && !v && (
        <Alert kind="warn">
          {t.t.name} has never been published: publish it on its page to compose a broadcast from it.
        </Alert>
      )}
      {t && v && (
        <p class="muted" data-testid="template-version">
          Composed from <strong>published version #{v.number}</strong>
          {v.published_at ? ` (published ${fmtDate(v.published_at)})` : ''}
          {t.t.has_unpublished_versions ? "; the template's unpublished changes are not used." : '.'}
        </p>
      )}
      {v && v.variables.length > 0 && (
        <fieldset data-testid="template-variables">
          <legend>Values for the template's variables (the same for every recipient)</legend>
          {v.variables.map((x) => (
            <div class="field" key={x.key}>
              <label for={`bc-var-${x.key}`}>{x.key}</label>
              <input
                id={`bc-var-${x.key}`}
                value={values[x.key] ?? ''}
                inputMode={x.type === 'number' ? 'decimal' : undefined}
                placeholder={x.fallback_value === null ? 'required' : `fallback: ${x.fallback_value}`}
                onInput={(e) => setValues({ ...values, [x.key]: e.currentTarget.value })}
              />
            </div>
          ))}
        </fieldset>
      )}
    </>
  );
}

const pct = (n: number, of: number) => (of > 0 ? `${((n / of) * 100).toFixed(1)}%` : '—');

/** The per-broadcast numbers, with the share of emails handed over while it sends. */
export function Metrics({ s, live }: { s: Stats; live: boolean }) {
  const done = s.sent - s.queued;
  const tiles: [string, string, string?][] = [
    [
      'Recipients',
      num(s.recipients),
      `${num(s.skipped.unsubscribed + s.skipped.topic + s.skipped.suppressed)} skipped`,
    ],
    ['Delivered', num(s.delivered), pct(s.delivered, s.sent)],
    ['Opened', num(s.opened), pct(s.opened, s.delivered)],
    ['Clicked', num(s.clicked), pct(s.clicked, s.delivered)],
    ['Bounced', num(s.bounced), pct(s.bounced, s.sent)],
    ['Complained', num(s.complained), pct(s.complained, s.delivered)],
    ['Unsubscribed', num(s.unsubscribed), pct(s.unsubscribed, s.delivered)],
    ['Waiting for delivery', num(s.queued)],
  ];
  return (
    <>
      <div class="progress-line">
        <progress max={Math.max(s.recipients, s.sent, 1)} value={Math.max(done, 0)} aria-label="Emails handed over" />
        <span class="muted">
          {num(Math.max(done, 0))} of {num(Math.max(s.recipients, s.sent))} handed over{live ? ' · updating live' : ''}
        </span>
      </div>
      <div class="stats compact" data-testid="metrics">
        {tiles.map(([label, value, sub]) => (
          <div class="stat" key={label}>
            <div class="stat-label">{label}</div>
            <div class="stat-value">{value}</div>
            {sub && <div class="stat-sub">{sub}</div>}
          </div>
        ))}
      </div>
    </>
  );
}

interface Preview {
  contact: { id: string; email: string; first_name: string | null } | null;
  to: string;
  from: string;
  subject: string;
  html: string | null;
  text: string | null;
}
interface ContactItem {
  id: string;
  email: string;
  first_name: string | null;
}
export interface Unsaved {
  subject: string;
  html: string;
  text: string;
  preview_text: string;
  from: string;
}

/**
 * The broadcast as one contact gets it: POST /broadcasts/:id/preview with the unsaved edits while
 * the draft is edited, else GET of the saved copy. Contacts of the segment are offered; any address may be typed.
 */
export function PreviewAs({
  id,
  segment,
  unsaved,
  title,
}: {
  id: string;
  segment: string;
  unsaved?: Unsaved;
  title: string;
}) {
  const contacts = useLoad(
    () => (segment ? get<List<ContactItem>>(`/segments/${segment}/contacts?limit=50`) : Promise.resolve(undefined)),
    [segment],
  );
  const [email, setEmail] = useState('');
  const [p, setP] = useState<Preview>();
  const [error, setError] = useState<string>();
  const first = contacts.data?.data[0]?.email ?? '';
  const who = email.trim() || first;
  useEffect(() => {
    if (!who) return;
    let live = true;
    const timer = setTimeout(() => {
      const req = unsaved
        ? post<Preview>(`/broadcasts/${id}/preview`, {
            email: who,
            ...unsaved,
            from: unsaved.from.trim() || undefined,
            text: unsaved.text || null,
            preview_text: unsaved.preview_text || null,
          })
        : get<Preview>(`/broadcasts/${id}/preview${qs({ email: who })}`);
      req.then(
        (r) => {
          if (live) {
            setP(r);
            setError(undefined);
          }
        },
        (e: Error) => {
          if (live) setError(e.message);
        },
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, who, JSON.stringify(unsaved)]);
  return (
    <section class="card" data-testid="preview-as">
      <h2>Preview as a contact</h2>
      <div class="field">
        <label for="bc-preview-as">Contact's email (personalized with their data)</label>
        <input
          id="bc-preview-as"
          type="email"
          list="bc-preview-contacts"
          value={email}
          placeholder={first || 'someone@example.com'}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <datalist id="bc-preview-contacts">
          {contacts.data?.data.map((c) => (
            <option key={c.id} value={c.email}>
              {c.first_name ?? ''}
            </option>
          ))}
        </datalist>
      </div>
      {error && <Alert>{error}</Alert>}
      {!who ? (
        <p class="muted">The segment has no contacts yet: type an address to preview.</p>
      ) : !p ? (
        error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p class="wrap">
            <strong>To:</strong> {p.to}
            {p.contact
              ? p.contact.first_name
                ? ` (${p.contact.first_name})`
                : ''
              : ' (not a contact: tag fallbacks apply)'}
          </p>
          <p>
            <strong>Subject:</strong> <span data-testid="preview-as-subject">{p.subject}</span>
          </p>
          <EmailPreview html={p.html} title={`${title} for ${p.to}`} />
          {p.text && (
            <>
              <h3>Plain text</h3>
              <pre class="code" data-testid="preview-as-text">
                {p.text}
              </pre>
            </>
          )}
          <p class="muted">
            {'{{{RESEND_UNSUBSCRIBE_URL}}}'} becomes each recipient's own unsubscribe link when it is sent.
          </p>
        </>
      )}
    </section>
  );
}

const TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
interface Recipient {
  id: string;
  contact_id: string | null;
  email: string;
  count?: number;
  bounce_type?: string;
  clicked_links?: { url: string; clicks: number }[];
}

/** GET /broadcasts/:id/recipients?type=…: who got it, opened it, clicked… paged by cursor. */
export function Recipients({ id, refresh }: { id: string; refresh: string }) {
  const [type, setType] = useState<(typeof TYPES)[number]>('sent');
  const [email, setEmail] = useState('');
  const [q, setQ] = useState('');
  const list = usePaged<Recipient>(
    (after) => `/broadcasts/${id}/recipients${qs({ type, email: q, limit: 50, after })}`,
    `${id}|${type}|${q}|${refresh}`,
  );
  const extra = type === 'opened' || type === 'clicked' ? 'Times' : type === 'bounced' ? 'Bounce' : null;
  return (
    <section class="card">
      <h2>Recipients</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(email.trim());
        }}
      >
        <label class="sr-only" for="bc-rcpt-type">
          Which recipients
        </label>
        <select id="bc-rcpt-type" value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t === 'sent' ? 'all sent' : t}
            </option>
          ))}
        </select>
        <label class="sr-only" for="bc-rcpt-email">
          Find an address
        </label>
        <input
          id="bc-rcpt-email"
          type="search"
          class="grow"
          value={email}
          placeholder="Find an address"
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <button class="btn">Find</button>
      </form>
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <p class="muted" data-testid="recipients-empty">
          No recipients {type === 'sent' ? 'yet' : `${type} yet`}
          {q ? ` matching ${q}` : ''}.
        </p>
      ) : (
        <PagedTable
          list={list}
          testId="recipients"
          head={
            <>
              <th scope="col">Email</th>
              <th scope="col">Contact</th>
              {extra && <th scope="col">{extra}</th>}
            </>
          }
        >
          {list.rows.map((r) => (
            <tr key={r.id}>
              <td class="wrap">
                <Link href={`/emails/${r.id}`}>{r.email}</Link>
              </td>
              <td>{r.contact_id ? <Link href={`/contacts/${r.contact_id}`}>contact</Link> : '—'}</td>
              {extra && <td>{type === 'bounced' ? r.bounce_type : num(r.count ?? 0)}</td>}
            </tr>
          ))}
        </PagedTable>
      )}
    </section>
  );
}

interface Audience {
  contacts: number;
  skipped: { unsubscribed: number; topic: number; suppressed: number };
  recipients: number;
  capped: boolean;
}

const people = (n: number) => `${num(n)} ${n === 1 ? 'recipient' : 'recipients'}`;

/**
 * The last step before a broadcast leaves: what is sent (from, subject, when) and to how many,
 * after the fan-out's exclusions (GET /broadcasts/:id/audience, counted by the server's rules);
 * the confirmation names that count. Nothing is sent until it is clicked.
 */
export function Review({
  id,
  from,
  subject,
  when,
  busy,
  onBack,
  onConfirm,
}: {
  id: string;
  from: string;
  subject: string;
  when: string;
  busy: boolean;
  onBack: () => void;
  onConfirm: () => void;
}) {
  const a = useLoad(() => get<Audience>(`/broadcasts/${encodeURIComponent(id)}/audience`), [id]);
  if (a.error) return <Alert>{a.error}</Alert>;
  if (!a.data) return <Loading />;
  const n = a.data;
  const count = `${n.capped ? 'over ' : ''}${people(n.recipients)}`;
  return (
    <div class="review" data-testid="review" role="group" aria-label="Review before sending">
      <h3>Review</h3>
      <KV
        items={[
          ['Recipients', <strong data-testid="review-recipients">{count}</strong>],
          [
            "Skipped of the segment's contacts",
            `${num(n.skipped.unsubscribed)} unsubscribed, ${num(n.skipped.topic)} opted out of the topic, ${num(n.skipped.suppressed)} suppressed (of ${num(n.contacts)})`,
          ],
          ['From', from],
          ['Subject', subject],
          ['When', when || 'Now'],
        ]}
      />
      <p class="muted">The preview above shows it as one contact gets it; a test send puts it in a real inbox first.</p>
      {n.recipients === 0 ? <Alert kind="warn">Nobody would receive it: choose another segment or topic.</Alert> : null}
      <div class="actions">
        <button class="btn primary" onClick={onConfirm} disabled={busy || n.recipients === 0}>
          {when ? `Schedule for ${count}` : `Send to ${count} now`}
        </button>
        <button class="btn ghost" type="button" onClick={onBack}>
          Back
        </button>
      </div>
    </div>
  );
}
