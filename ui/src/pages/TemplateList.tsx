// The Templates list (newest first) with a quick create: raw HTML (a starter body) or a visual
// design (the editor's starter document, the editor's chunk loaded for it).
import { post } from '../api';
import { Alert, Badge, Empty, Loading, PageHead, PagedTable, AgoCell } from '../components/ui';
import { loadEditor } from '../components/EmailContent';
import { Link } from '../components/Link';
import { useAction, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

export interface Item {
  id: string;
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export function Templates() {
  const { state } = useSession();
  const list = usePaged<Item>((after) => `/templates?limit=50${after ? `&after=${after}` : ''}`, 'templates');
  const create = useAction(async (form: HTMLFormElement, visual: boolean) => {
    const fd = new FormData(form);
    const r = await post<{ id: string }>('/templates', {
      name: fd.get('name'),
      ...(visual ? { document: (await loadEditor()).starter() } : { html: '<p>Hello {{{NAME|there}}},</p>\n<p></p>' }),
    });
    navigate(`/templates/${r.id}`);
  });
  return (
    <>
      <PageHead
        title="Templates"
        sub="Reusable emails with {{{VARIABLES}}}: send one with template: {id, variables} once it is published."
      />
      {canEdit(state) && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.run(
              e.currentTarget as HTMLFormElement,
              (e as SubmitEvent).submitter?.getAttribute('value') === 'visual',
            );
          }}
        >
          <label class="sr-only" for="tpl-name">
            Template name
          </label>
          <input id="tpl-name" name="name" required maxLength={256} placeholder="Order confirmation" class="grow" />
          <button class="btn primary" disabled={create.busy} value="html">
            New template
          </button>
          <button class="btn" disabled={create.busy} value="visual">
            New visual template
          </button>
        </form>
      )}
      {create.error && <Alert>{create.error}</Alert>}
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No templates yet">
          Create one here or with <code>resend.templates.create()</code>.
        </Empty>
      ) : (
        <PagedTable
          list={list}
          testId="templates"
          head={
            <>
              <th scope="col">Name</th>
              <th scope="col">Alias</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
            </>
          }
        >
          {list.rows.map((t) => (
            <tr key={t.id}>
              <td>
                <Link href={`/templates/${t.id}`}>{t.name}</Link>
              </td>
              <td class="mono">{t.alias ?? '—'}</td>
              <td>
                <Badge status={t.status === 'published' ? 'enabled' : 'draft'} text={t.status} />
              </td>
              <AgoCell at={t.updated_at} />
            </tr>
          ))}
        </PagedTable>
      )}
    </>
  );
}
