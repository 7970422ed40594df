// Shapes of the audience resources as the API returns them (segments, topics, contacts) and the
// words the dashboard uses for a topic's subscription states.
/** A segment; `filter` is null for a fixed list of members; GET /segments/:id adds the (capped) count of a rule-based one. */
export interface Segment {
  id: string;
  name: string;
  created_at: string;
  filter?: unknown;
  contacts_count?: number | null;
  contacts_count_capped?: boolean;
}
export interface Topic {
  id: string;
  name: string;
  description: string | null;
  default_subscription: Subscription;
  visibility: 'public' | 'private';
  created_at: string;
}
export type Subscription = 'opt_in' | 'opt_out';
/** A row of GET /contacts (a list item, without properties). */
export interface ContactRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  created_at: string;
}
/** An item of GET /contacts/:id/topics: the effective state, the topic's default, and whether the contact chose. */
export interface ContactTopic {
  id: string;
  name: string;
  description: string | null;
  subscription: Subscription;
  default_subscription?: Subscription;
  chosen?: boolean;
}

export const fullName = (c: { first_name: string | null; last_name: string | null }) =>
  [c.first_name, c.last_name].filter(Boolean).join(' ');

/** What a default means for a contact who never chose. */
export const DEFAULT_WORDS: Record<Subscription, { short: string; long: string }> = {
  opt_in: { short: 'Subscribed by default', long: "Every contact gets this topic's mail until they opt out." },
  opt_out: { short: 'Not subscribed by default', long: "Only contacts who opt in get this topic's mail." },
};

export const VISIBILITY_WORDS: Record<Topic['visibility'], { short: string; long: string }> = {
  public: { short: 'Public', long: 'Listed on the preference page for every contact.' },
  private: { short: 'Private', long: 'Listed on the preference page only for contacts who are subscribed to it.' },
};

/** A form's text field, trimmed; empty means "no value". */
export const textField = (fd: FormData, k: string) => ((fd.get(k) as string | null) ?? '').trim() || null;

/** Every page of a cursor-paged list (at most `maxPages` × 100 items), for pickers. */
export async function allPages<T extends { id: string }>(
  get: (path: string) => Promise<{ data: T[]; has_more: boolean }>,
  base: string,
  maxPages = 20,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < maxPages; i++) {
    const sep = base.includes('?') ? '&' : '?';
    const r = await get(`${base}${sep}limit=100${out.length ? `&after=${out[out.length - 1].id}` : ''}`);
    out.push(...r.data);
    if (!r.has_more) break;
  }
  return out;
}
