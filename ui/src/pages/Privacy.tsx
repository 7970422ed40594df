// Privacy: the team's retention per kind of data (components/RetentionSettings.tsx) and the
// data-subject requests, exports and erasures (components/PrivacyRequests.tsx). Members see the
// retention read-only; the requests are for owners and admins (the API refuses members).
import { PrivacyRequests } from '../components/PrivacyRequests';
import { RetentionSettings } from '../components/RetentionSettings';
import { PageHead } from '../components/ui';
import { canEdit, useSession } from '../session';

export function Privacy() {
  const { state } = useSession();
  const edit = canEdit(state);
  return (
    <>
      <PageHead
        title="Privacy"
        sub="How long this team keeps data, and requests to export or erase everything held about one address."
      />
      <RetentionSettings edit={edit} />
      {edit ? <PrivacyRequests edit={edit} /> : <p class="muted">Owners and admins export and erase addresses here.</p>}
    </>
  );
}
