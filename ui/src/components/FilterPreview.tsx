// The live count of a filter being edited: POST /segments/preview, debounced, the newest answer
// winning; the count, the first matching contacts, or the server's 422 for the editor to place.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../api';
import { fullName, type ContactRow } from '../audience';
import { num } from '../format';
import { Badge } from './ui';

interface Preview {
  count: number;
  count_capped: boolean;
  data: ContactRow[];
}
export const countText = (n: number, capped: boolean | undefined) => (capped ? `${num(n)}+` : num(n));

/** Previews `filter` (a rule tree, or undefined while there is none) `delay` ms after it last changed; reports errors (the API's own words) through onError. */
export function usePreview(filter: unknown, onError: (message: string | undefined) => void, delay = 300) {
  const [preview, setPreview] = useState<Preview>();
  const [busy, setBusy] = useState(false);
  const seq = useRef(0);
  const key = filter === undefined ? '' : JSON.stringify(filter);
  useEffect(() => {
    const mine = ++seq.current;
    if (!key) {
      setPreview(undefined);
      setBusy(false);
      onError(undefined);
      return;
    }
    setBusy(true);
    const timer = setTimeout(async () => {
      try {
        const p = await post<Preview>('/segments/preview', { filter: JSON.parse(key) });
        if (mine !== seq.current) return;
        setPreview(p);
        onError(undefined);
      } catch (e) {
        if (mine !== seq.current) return;
        setPreview(undefined);
        onError(e instanceof ApiError ? (e.serverMessage ?? e.message) : (e as Error).message); // the raw 422: its path places it
      } finally {
        if (mine === seq.current) setBusy(false);
      }
    }, delay);
    return () => clearTimeout(timer);
  }, [key]);
  return { preview, busy };
}

export function PreviewPanel({
  preview,
  busy,
  empty,
  invalid,
}: {
  preview: Preview | undefined;
  busy: boolean;
  empty: boolean;
  invalid?: boolean;
}) {
  return (
    <section class="preview" aria-label="Matching contacts" aria-busy={busy}>
      <p class="preview-count" data-testid="preview-count" aria-live="polite">
        {empty ? (
          'Add a rule to see who matches.'
        ) : preview ? (
          <>
            <strong>{countText(preview.count, preview.count_capped)}</strong>{' '}
            {preview.count === 1 && !preview.count_capped ? 'contact matches' : 'contacts match'}
            {busy ? ' (updating…)' : ''}
          </>
        ) : busy ? (
          'Counting…'
        ) : invalid ? (
          'Fix the rule to see who matches.'
        ) : (
          '—'
        )}
      </p>
      {!empty && preview && preview.data.length > 0 && (
        <div class="table-wrap">
          <table class="list" data-testid="preview-contacts">
            <caption class="sr-only">The first matching contacts</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {preview.data.map((c) => (
                <tr key={c.id}>
                  <td class="ellipsis" title={c.email}>
                    {c.email}
                  </td>
                  <td>{fullName(c) || <span class="muted">—</span>}</td>
                  <td>
                    <Badge status={c.unsubscribed ? 'unsubscribed' : 'subscribed'} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {preview.count > preview.data.length && <p class="hint pad">The first {preview.data.length} of them.</p>}
        </div>
      )}
    </section>
  );
}
