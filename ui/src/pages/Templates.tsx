// Templates: the list with a quick create (TemplateList.tsx), and a template's editor: fields and
// variables, save (a content change is a new draft version), publish, duplicate, delete, a live
// preview of the html and the text rendered by the server with sample values as one types (POST
// /templates/:id/preview with the unsaved draft; GET of the saved copy for read-only members), and
// the version history, paged by cursor, any version loadable back into the editor. The body is
// raw HTML or a visual editor's document (components/EmailContent.tsx, the editor a lazy chunk).
import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { Alert, Badge, KV, Loading, PageHead, PagedTable, AgoCell } from '../components/ui';
import { EmailPreview } from '../components/EmailPreview';
import { EmailContent, type EmailDocument } from '../components/EmailContent';
import { Link } from '../components/Link';
import { fmtDate } from '../format';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';
import type { Item } from './TemplateList';

export { Templates } from './TemplateList';

interface Variable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}
interface Template extends Item {
  current_version_id: string;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: Variable[];
  has_unpublished_versions: boolean;
  document?: EmailDocument | null;
}
interface Version extends Pick<Template, 'from' | 'subject' | 'reply_to' | 'html' | 'text' | 'variables' | 'document'> {
  id: string;
  number: number;
  published: boolean;
  published_at: string | null;
  created_at: string;
}
interface Preview {
  subject: string | null;
  html: string;
  text: string | null;
  generated_text: string | null;
  missing: string[];
}

type Draft = {
  name: string;
  alias: string;
  from: string;
  subject: string;
  reply_to: string;
  html: string;
  document: EmailDocument | null;
  text: string;
  variables: { key: string; type: 'string' | 'number'; fallback: string }[];
};

const draftOf = (t: Template): Draft => ({
  name: t.name,
  alias: t.alias ?? '',
  from: t.from ?? '',
  subject: t.subject ?? '',
  reply_to: (t.reply_to ?? []).join(', '),
  html: t.html,
  document: t.document ?? null,
  text: t.text ?? '',
  variables: t.variables.map((v) => ({
    key: v.key,
    type: v.type,
    fallback: v.fallback_value === null ? '' : String(v.fallback_value),
  })),
});

const bodyOf = (d: Draft) => ({
  name: d.name,
  alias: d.alias.trim() || null,
  from: d.from.trim() || null,
  subject: d.subject || null,
  // a design's plain text is generated from it by the server
  ...(d.document ? { document: d.document } : { html: d.html, text: d.text || null }),
  reply_to: d.reply_to
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  variables: d.variables
    .filter((v) => v.key.trim())
    .map((v) => ({
      key: v.key.trim(),
      type: v.type,
      fallback_value: v.fallback === '' ? null : v.type === 'number' ? Number(v.fallback) : v.fallback,
    })),
});

export function TemplateDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const t = useLoad(() => get<Template>(`/templates/${encodeURIComponent(id)}`), [id]);
  const versions = usePaged<Version>(
    (after) => `/templates/${encodeURIComponent(id)}/versions?limit=20${after ? `&after=${after}` : ''}`,
    `${id}|${t.data?.updated_at}|${t.data?.current_version_id}`,
  );
  const [d, setD] = useState<Draft>();
  const [samples, setSamples] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<Preview>();
  const [previewError, setPreviewError] = useState<string>();
  useEffect(() => {
    if (t.data) setD(draftOf(t.data));
  }, [t.data]);
  // The preview follows the editor (unsaved changes included) and the sample values, a moment
  // after the last keystroke; a read-only member previews the saved copy.
  useEffect(() => {
    if (!t.data || !d) return;
    let live = true;
    const timer = setTimeout(() => {
      const values = Object.fromEntries(Object.entries(samples).filter(([, v]) => v !== ''));
      const b = bodyOf(d);
      const req = edit
        ? post<Preview>(`/templates/${t.data!.id}/preview`, {
            variables: values,
            draft: {
              subject: b.subject,
              html: d.html,
              text: d.document ? null : d.text || null,
              variables: b.variables,
            },
          })
        : get<Preview>(`/templates/${t.data!.id}/preview?variables=${encodeURIComponent(JSON.stringify(values))}`);
      req.then(
        (p) => {
          if (live) {
            setPreview(p);
            setPreviewError(undefined);
          }
        },
        (e: Error) => {
          if (live) setPreviewError(e.message);
        },
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [t.data, d, samples]);
  const save = useAction(async () => {
    await patch(`/templates/${t.data!.id}`, bodyOf(d!));
    t.reload();
  });
  const publish = useAction(async () => {
    await post(`/templates/${t.data!.id}/publish`);
    t.reload();
  });
  const duplicate = useAction(async () => {
    const r = await post<{ id: string }>(`/templates/${t.data!.id}/duplicate`);
    navigate(`/templates/${r.id}`);
  });
  const remove = useAction(async () => {
    if (confirm('Delete this template and its history?')) {
      await del(`/templates/${t.data!.id}`);
      navigate('/templates');
    }
  });
  if (t.error)
    return (
      <>
        <p>
          <Link href="/templates">← Templates</Link>
        </p>
        <Alert>{t.error}</Alert>
      </>
    );
  if (!t.data || !d) return <Loading />;
  const set = (k: keyof Draft) => (e: Event) => setD({ ...d, [k]: (e.currentTarget as HTMLInputElement).value });
  const setVar = (i: number, k: 'key' | 'type' | 'fallback', v: string) =>
    setD({ ...d, variables: d.variables.map((x, j) => (j === i ? { ...x, [k]: v } : x)) });
  const error = save.error ?? publish.error ?? duplicate.error ?? remove.error;
  const dirty = JSON.stringify(bodyOf(d)) !== JSON.stringify(bodyOf(draftOf(t.data)));
  const field = (k: 'name' | 'alias' | 'from' | 'subject' | 'reply_to', l: string, placeholder = '') => (
    <div class="field">
      <label for={`tpl-${k}`}>{l}</label>
      <input id={`tpl-${k}`} value={d[k]} onInput={set(k)} disabled={!edit} placeholder={placeholder} />
    </div>
  );
  return (
    <>
      <p>
        <Link href="/templates">← Templates</Link>
      </p>
      <PageHead title={t.data.name}>
        <Badge status={t.data.status === 'published' ? 'enabled' : 'draft'} text={t.data.status} />
        {t.data.status === 'published' && t.data.has_unpublished_versions && (
          <Badge status="pending" text="unpublished changes" />
        )}
        {edit && (
          <button class="btn primary" onClick={() => save.run()} disabled={save.busy || !dirty}>
            Save draft
          </button>
        )}
        {edit && (
          <button
            class="btn"
            onClick={() => publish.run()}
            disabled={publish.busy || dirty || !t.data.has_unpublished_versions}
          >
            Publish
          </button>
        )}
        {edit && (
          <button class="btn ghost" onClick={() => duplicate.run()}>
            Duplicate
          </button>
        )}
        {edit && (
          <button class="btn bad ghost" onClick={() => remove.run()}>
            Delete
          </button>
        )}
      </PageHead>
      {error && <Alert>{error}</Alert>}
      <section class="card">
        <KV
          items={[
            ['Id', <span class="mono">{t.data.id}</span>],
            ['Published', fmtDate(t.data.published_at)],
            ['Updated', fmtDate(t.data.updated_at)],
          ]}
        />
      </section>
      <section class="card">
        <h2>Content</h2>
        {field('name', 'Name')}
        {field('alias', 'Alias', 'order-confirmation')}
        {field('from', 'From', 'Acme <hello@example.com>')}
        {field('subject', 'Subject', 'Your {{{PRODUCT}}} is on its way')}
        {field('reply_to', 'Reply-to (comma separated)')}
        <EmailContent
          id="tpl-html"
          label="HTML"
          title={d.name}
          value={d}
          disabled={!edit}
          onChange={(f) => setD((x) => x && { ...x, ...f(x) })}
        />
        {!d.document && (
          <div class="field">
            <label for="tpl-text">Plain text (generated from the HTML when empty)</label>
            <textarea id="tpl-text" class="mono" rows={4} value={d.text} onInput={set('text')} disabled={!edit} />
          </div>
        )}
        <fieldset>
          <legend>
            Variables (write them {'{{{KEY}}}'} or {'{{{KEY|fallback}}}'})
          </legend>
          {d.variables.map((v, i) => (
            <div class="row" key={i} data-testid="variable">
              <input
                aria-label={`Variable ${i + 1} key`}
                value={v.key}
                onInput={(e) => setVar(i, 'key', e.currentTarget.value)}
                disabled={!edit}
                placeholder="PRODUCT"
              />
              <select
                aria-label={`Variable ${i + 1} type`}
                value={v.type}
                onChange={(e) => setVar(i, 'type', e.currentTarget.value)}
                disabled={!edit}
              >
                <option>string</option>
                <option>number</option>
              </select>
              <input
                aria-label={`Variable ${i + 1} fallback`}
                value={v.fallback}
                onInput={(e) => setVar(i, 'fallback', e.currentTarget.value)}
                disabled={!edit}
                placeholder="fallback (empty: required)"
              />
              {edit && (
                <button
                  type="button"
                  class="btn ghost sm"
                  onClick={() => setD({ ...d, variables: d.variables.filter((_, j) => j !== i) })}
                >
                  Remove
                </button>
              )}
            </div>
          ))}
          {edit && d.variables.length < 50 && (
            <button
              type="button"
              class="btn sm"
              onClick={() => setD({ ...d, variables: [...d.variables, { key: '', type: 'string', fallback: '' }] })}
            >
              Add variable
            </button>
          )}
        </fieldset>
      </section>
      <section class="card">
        <h2>Preview{dirty ? ' (unsaved changes)' : ''}</h2>
        {d.variables
          .filter((v) => v.key.trim())
          .map((v) => (
            <div class="field" key={v.key}>
              <label for={`sample-${v.key.trim()}`}>{v.key.trim()}</label>
              <input
                id={`sample-${v.key.trim()}`}
                value={samples[v.key.trim()] ?? ''}
                placeholder={v.fallback === '' ? 'required' : `fallback: ${v.fallback}`}
                onInput={(e) => setSamples({ ...samples, [v.key.trim()]: e.currentTarget.value })}
              />
            </div>
          ))}
        {previewError && <Alert>{previewError}</Alert>}
        {!preview ? (
          previewError ? null : (
            <Loading />
          )
        ) : (
          <>
            {preview.missing.length > 0 && (
              <Alert kind="warn">
                No value yet for {preview.missing.join(', ')}: a send must give{' '}
                {preview.missing.length > 1 ? 'them' : 'it'}.
              </Alert>
            )}
            <p>
              <strong>Subject:</strong>{' '}
              <span data-testid="preview-subject">{preview.subject ?? '(given by each send)'}</span>
            </p>
            <EmailPreview html={preview.html} title={t.data.name} />
            <h3>Plain text{preview.text === null ? ' (generated from the HTML, as a send does)' : ''}</h3>
            <pre class="code wrap" data-testid="preview-text">
              {preview.text ?? preview.generated_text}
            </pre>
          </>
        )}
      </section>
      <section class="card">
        <h2>Versions</h2>
        {versions.error && <Alert>{versions.error}</Alert>}
        {!versions.loaded ? (
          <Loading />
        ) : (
          <PagedTable
            list={versions}
            testId="versions"
            head={
              <>
                <th scope="col">Version</th>
                <th scope="col">Subject</th>
                <th scope="col">State</th>
                <th scope="col">Saved</th>
                {edit && (
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </>
            }
          >
            {versions.rows.map((v) => (
              <tr key={v.id}>
                <td>#{v.number}</td>
                <td>{v.subject ?? '—'}</td>
                <td>
                  {v.published ? (
                    <Badge status="enabled" text="published" />
                  ) : v.published_at ? (
                    <Badge status="draft" text="published before" />
                  ) : (
                    <Badge status="draft" text="draft" />
                  )}
                </td>
                <AgoCell at={v.created_at} />
                {edit && (
                  <td>
                    <button
                      type="button"
                      class="btn ghost sm"
                      onClick={() => {
                        setD({ ...draftOf({ ...t.data!, ...v, id: t.data!.id }), name: d.name, alias: d.alias });
                        window.scrollTo(0, 0);
                      }}
                    >
                      Load #{v.number} into the editor
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </PagedTable>
        )}
      </section>
    </>
  );
}
