// Automations: the list. One automation's page (the builder, on/off, the canvas with counts, its
// runs) is AutomationDetail.tsx.
import { Link } from '../components/Link';
import { AgoCell, Badge, Empty, ErrorRetry, Loading, PageHead, PagedTable } from '../components/ui';
import { usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

export interface Item {
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
  created_at: string;
  updated_at: string | null;
}

export function Automations() {
  const { state } = useSession();
  const list = usePaged<Item>((after) => `/automations?limit=50${after ? `&after=${after}` : ''}`, 'automations');
  return (
    <>
      <PageHead
        title="Automations"
        sub="Journeys a custom event starts for one contact: send templates, wait, branch on conditions, update the contact."
      >
        {canEdit(state) && (
          <button class="btn primary" onClick={() => navigate('/automations/new')}>
            New automation
          </button>
        )}
      </PageHead>
      {list.error ? (
        <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />
      ) : !list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No automations yet">
          Build one here, or with <code>resend.automations.create()</code>. Runs start from{' '}
          <code>POST /events/send</code>.
        </Empty>
      ) : (
        <PagedTable
          list={list}
          testId="automations"
          stack
          head={
            <>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
            </>
          }
        >
          {list.rows.map((a) => (
            <tr key={a.id}>
              <td>
                <Link href={`/automations/${a.id}`}>{a.name}</Link>
              </td>
              <td class="aside">
                <Badge status={a.status} />
              </td>
              <AgoCell at={a.updated_at ?? a.created_at} />
            </tr>
          ))}
        </PagedTable>
      )}
    </>
  );
}
