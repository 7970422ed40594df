// The review step before a broadcast leaves: what is sent, when, and to how many.
import { get } from '../../api';
import { Alert, KV, Loading } from '../../components/ui';
import { num } from '../../format';
import { useLoad } from '../../hooks';

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
