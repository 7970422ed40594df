// What a share link shows: a sent email's HTML (or its text as HTML), looked up by the id the
// link's signature names. The HTTP route signs and checks links; this reads the email.
import { emailFindById, emailRawById } from '../../store/emails.js';
import type { Queryable } from '../../store/db.js';
import type { DeferredBodies } from '../../delivery/deferred.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** True when the team has this email (the share endpoint answers 404 otherwise). */
export async function teamHasEmail(db: Queryable, teamId: string, id: string): Promise<boolean> {
  return Boolean(await emailFindById(db, teamId, id));
}

/** The page body for a checked share link, or undefined when the email is gone. */
export async function sharedEmailPage(db: Queryable, id: string, bodies?: DeferredBodies): Promise<string | undefined> {
  const row = await emailRawById(db, id);
  const found = row ? await emailFindById(db, row.team_id, id) : undefined;
  if (!found) return undefined;
  const body = found.deferred && bodies ? await bodies.render(found.deferred) : undefined;
  const email = body ? { html: body.html, text: body.text } : found;
  return (
    email.html ??
    `<pre style="white-space:pre-wrap;font:14px/1.5 system-ui,sans-serif">${escapeHtml(email.text ?? '')}</pre>`
  );
}
