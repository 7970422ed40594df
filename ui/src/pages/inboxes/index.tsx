// The Inboxes page (loaded on first visit, not in the main bundle): the list of inboxes, or one
// inbox's mailbox.
import { InboxList } from './InboxList';
import { Mailbox } from './Mailbox';
import './inboxes.css';

export function InboxesPage({ inbox, query }: { inbox?: string; query: URLSearchParams }) {
  return inbox ? <Mailbox inbox={inbox} query={query} /> : <InboxList />;
}
