// The preview as a chosen contact, rendered by the server's personalization, unsaved edits included.
import { useEffect, useState } from 'preact/hooks';
import { get, post, qs, type List } from '../../api';
import { Alert, Loading } from '../../components/ui';
import { EmailPreview } from '../../components/EmailPreview';
import { useLoad } from '../../hooks';

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
