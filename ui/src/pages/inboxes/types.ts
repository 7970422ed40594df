// The inbox API's answers as the dashboard reads them (the wire contract is the resend SDK's
// `inboxes` types), and small helpers shared by the Inboxes page's parts.
import { get, type List } from '../../api';

export interface Inbox {
  id: string;
  name: string | null;
  email_address: string;
  from_name: string | null;
  unread: number;
  last_received: string | null;
  created_at: string;
}
export interface Label {
  id: string;
  name: string;
  color: string;
}
export type Folder = 'inbox' | 'archive' | 'spam' | 'sent' | 'trash';
export const FOLDERS: Folder[] = ['inbox', 'archive', 'spam', 'sent', 'trash'];
export const MOVE_FOLDERS: Folder[] = ['inbox', 'archive', 'spam', 'trash'];
export interface Thread {
  id: string;
  subject: string | null;
  from: string | null;
  to: string[];
  labels: Label[];
  email_count: number;
  has_attachment: boolean;
  has_draft: boolean;
  read: boolean;
  received_at: string;
  folder: Folder;
}
export interface ThreadSummary {
  id: string;
  subject: string | null;
  folder: Folder;
  labels: Label[];
  read: boolean;
  assignee_email: string | null;
}
export interface Message {
  id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  reply_to: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
  read: boolean;
  received_at: string;
}
export interface Draft {
  id: string;
  type: 'standalone' | 'reply';
  to: string[] | null;
  cc: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  thread_id: string | null;
  reply_to_email_id: string | null;
  updated_at: string;
}
export interface DraftItem extends Omit<Draft, 'text' | 'html'> {
  snippet: string | null;
}

export const inboxPath = (inbox: string, rest = '') => `/inboxes/${encodeURIComponent(inbox)}${rest}`;

/** Every item of a cursor-paged list, at most `pages` pages of 100 (a conversation, the drafts). */
export async function readAll<T extends { id: string }>(path: string, pages = 20): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < pages; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get<List<T>>(`${path}${sep}limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    out.push(...r.data);
    if (!r.has_more || !r.data.length) break;
    after = r.data[r.data.length - 1].id;
  }
  return out;
}

/** "Casey <c@x.test>" → "Casey"; a bare address stays as it is. */
export const who = (addr: string | null | undefined) => {
  if (!addr) return '(unknown)';
  const m = /^\s*"?([^"<]*?)"?\s*<[^>]+>\s*$/.exec(addr);
  return m?.[1] ? m[1] : addr;
};

/** A comma or space separated list of addresses from a form field. */
export const addresses = (s: string) =>
  s
    .split(/[,;\s]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** A label's colour as text on its own tint: readable in light and dark themes. */
export const chipStyle = (color: string) => ({ borderColor: color, color: 'var(--text)', background: `${color}22` });
