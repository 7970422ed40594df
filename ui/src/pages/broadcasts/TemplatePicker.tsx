// The compose form's template picker: a published template's content with its variables filled.
import { useEffect, useState } from 'preact/hooks';
import { get, qs } from '../../api';
import { Alert } from '../../components/ui';
import { fmtDate } from '../../format';
import { useLoad, usePaged } from '../../hooks';
import { fillDocument, fillVariables, type TemplateVariable } from '../../template-fill';
import type { EmailDocument } from '../../components/EmailContent';

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
