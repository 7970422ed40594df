// Changing an API key's expiry and allowed networks (PATCH /api-keys/:id): an empty field lifts
// that limit. The API's refusal (a network that is not one, an expiry in the past) is shown as is.
import { patch } from '../api';
import { useAction } from '../hooks';
import { Alert } from './ui';

/** "203.0.113.0/24, 2001:db8::/32" → the list the API takes; empty → no limit. */
export const networksOf = (s: string | undefined) =>
  (s ?? '')
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** An instant as a datetime-local value (the browser's local time). */
const localValue = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function KeyLimits({
  k,
  onDone,
}: {
  k: { id: string; name: string; expires_at: string | null; allowed_networks: string[] | null };
  onDone: (changed: boolean) => void;
}) {
  const save = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const networks = networksOf(d.allowed_networks);
    await patch(`/api-keys/${k.id}`, {
      expires_at: d.expires_at ? new Date(d.expires_at).toISOString() : null,
      allowed_networks: networks.length ? networks : null,
    });
    onDone(true);
  });
  return (
    <form
      class="inline-form card highlight"
      aria-label={`Limits of ${k.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save.run(e.currentTarget as HTMLFormElement);
      }}
    >
      <strong>Limits of "{k.name}"</strong>
      <label class="field-inline">
        Expires{' '}
        <input
          name="expires_at"
          type="datetime-local"
          defaultValue={localValue(k.expires_at)}
          aria-label="Expires (empty: never)"
        />
      </label>
      <label class="field-inline grow">
        Allowed networks{' '}
        <input
          name="allowed_networks"
          maxLength={2000}
          defaultValue={k.allowed_networks?.join(', ') ?? ''}
          placeholder="any network"
          aria-label="Allowed networks (empty: any)"
        />
      </label>
      <button class="btn primary" disabled={save.busy}>
        Save limits
      </button>
      <button type="button" class="btn ghost" onClick={() => onDone(false)}>
        Cancel
      </button>
      {save.error && <Alert>{save.error}</Alert>}
    </form>
  );
}
