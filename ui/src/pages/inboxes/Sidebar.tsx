// The mailbox's side: compose, the folders (the inbox with its unread count), Drafts, the labels
// with their colours (choosing one filters the list; a new one added here), the agent settings and
// the shortcut list. On a phone it is a row that scrolls sideways above the list.
import { useState } from 'preact/hooks';
import { post } from '../../api';
import { Alert } from '../../components/ui';
import { useAction } from '../../hooks';
import { FOLDERS, inboxPath, type Inbox, type Label } from './types';

interface Props {
  inbox: Inbox;
  labels: Label[];
  folder: string;
  label: string;
  searching: boolean;
  choose: (folder: string, label?: string) => void;
  compose: () => void;
  agent: () => void;
  help: () => void;
  labelsChanged: () => void;
}

const NAMES: Record<string, string> = {
  inbox: 'Inbox',
  archive: 'Archive',
  spam: 'Spam',
  sent: 'Sent',
  trash: 'Trash',
  drafts: 'Drafts',
};

export function Sidebar(p: Props) {
  const [adding, setAdding] = useState(false);
  const add = useAction(async (form: HTMLFormElement) => {
    const f = new FormData(form);
    await post(inboxPath(p.inbox.id, '/labels'), { name: String(f.get('name')), color: String(f.get('color')) });
    setAdding(false);
    p.labelsChanged();
  });
  const current = (f: string, l = '') => !p.searching && p.folder === f && p.label === l;
  return (
    <aside class="ib-side" aria-label="Folders and labels">
      <button type="button" class="btn primary ib-compose" onClick={p.compose} aria-keyshortcuts="c">
        Compose
      </button>
      <ul class="ib-folders">
        {[...FOLDERS, 'drafts'].map((f) => (
          <li key={f}>
            <button
              type="button"
              class="ib-folder"
              aria-current={current(f) ? 'page' : undefined}
              onClick={() => p.choose(f)}
            >
              <span>{NAMES[f]}</span>
              {f === 'inbox' && p.inbox.unread > 0 && (
                <span class="badge info" data-testid="unread-count" aria-label={`${p.inbox.unread} unread`}>
                  {p.inbox.unread}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      <h3 class="ib-side-title">Labels</h3>
      <ul class="ib-folders">
        {p.labels.map((l) => (
          <li key={l.id}>
            <button
              type="button"
              class="ib-folder"
              aria-current={current('all', l.id) ? 'page' : undefined}
              onClick={() => p.choose('all', l.id)}
            >
              <span>
                <span class="ib-dot" style={{ background: l.color }} /> {l.name}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {adding ? (
        <form
          class="ib-new-label"
          onSubmit={(e) => {
            e.preventDefault();
            add.run(e.currentTarget);
          }}
        >
          <input name="name" aria-label="Label name" placeholder="Label name" required maxLength={100} />
          <input name="color" type="color" aria-label="Label colour" defaultValue="#3451d1" />
          <button class="btn sm primary" disabled={add.busy}>
            Add
          </button>
          {add.error && <Alert>{add.error}</Alert>}
        </form>
      ) : (
        <button type="button" class="linkish small ib-side-link" onClick={() => setAdding(true)}>
          + New label
        </button>
      )}
      <div class="ib-side-foot">
        <button type="button" class="linkish small" onClick={p.agent}>
          Agent settings
        </button>
        <button type="button" class="linkish small" onClick={p.help} aria-keyshortcuts="?">
          Keyboard shortcuts
        </button>
      </div>
    </aside>
  );
}
