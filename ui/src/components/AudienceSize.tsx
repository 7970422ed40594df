// The broadcast composer's audience size: as a segment and topic are chosen, how many contacts a
// send would reach now and who it skips (GET /broadcasts/audience, the review step's own rules).
import { get, qs } from '../api';
import { num } from '../format';
import { useLoad } from '../hooks';

interface Audience {
  contacts: number;
  skipped: { unsubscribed: number; topic: number; suppressed: number };
  recipients: number;
  capped: boolean;
}

export function AudienceSize({ segment, topic }: { segment: string; topic: string }) {
  const a = useLoad(
    () =>
      segment
        ? get<Audience>(`/broadcasts/audience${qs({ segment_id: segment, topic_id: topic || undefined })}`)
        : Promise.resolve(undefined),
    [segment, topic],
  );
  if (!segment) return null;
  const d = a.data;
  const skipped = d ? d.skipped.unsubscribed + d.skipped.topic + d.skipped.suppressed : 0;
  return (
    <p class="hint audience-size" data-testid="audience-size" aria-live="polite">
      {a.error
        ? `Audience size unavailable: ${a.error}`
        : !d || a.loading
          ? 'Counting the audience…'
          : `Would reach ${num(d.recipients)}${d.capped ? '+' : ''} of ${num(d.contacts)} contacts` +
            (skipped
              ? ` (skips ${[
                  d.skipped.unsubscribed && `${num(d.skipped.unsubscribed)} unsubscribed`,
                  d.skipped.topic && `${num(d.skipped.topic)} out of the topic`,
                  d.skipped.suppressed && `${num(d.skipped.suppressed)} suppressed`,
                ]
                  .filter(Boolean)
                  .join(', ')})`
              : '')}
    </p>
  );
}
