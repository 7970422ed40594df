// A conversation's toolbar: reply, forward, move (archive, spam, trash, back to the inbox), mark
// unread, the labels menu (each label with its colour) and the assignee.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Folder, Label, ThreadSummary } from './types';
import { chipStyle } from './types';

export interface Member {
  email: string;
  name: string;
}

interface Props {
  summary: ThreadSummary;
  labels: Label[];
  members: Member[];
  labelsOpen: boolean;
  setLabelsOpen: (open: boolean) => void;
  busy: boolean;
  reply: () => void;
  forward: () => void;
  move: (f: Folder) => void;
  unread: () => void;
  toggleLabel: (l: Label, on: boolean) => Promise<boolean>;
  assign: (email: string | null) => void;
}

export function ThreadActions(p: Props) {
  const on = new Set(p.summary.labels.map((l) => l.id));
  // A ticked box shows ticked at once; the thread's labels from the server replace it when they come.
  const [want, setWant] = useState<Record<string, boolean>>({});
  const labelKey = p.summary.labels.map((l) => l.id).join();
  useEffect(() => setWant({}), [p.summary.id, labelKey]);
  const f = p.summary.folder;
  return (
    <div class="ib-actions" role="toolbar" aria-label="Conversation actions">
      <button type="button" class="btn sm" onClick={p.reply} aria-keyshortcuts="r">
        Reply
      </button>
      <button type="button" class="btn sm" onClick={p.forward} aria-keyshortcuts="f">
        Forward
      </button>
      {f !== 'archive' && f !== 'sent' && (
        <button type="button" class="btn sm" onClick={() => p.move('archive')} disabled={p.busy} aria-keyshortcuts="e">
          Archive
        </button>
      )}
      {f !== 'inbox' && (
        <button type="button" class="btn sm" onClick={() => p.move('inbox')} disabled={p.busy}>
          Move to inbox
        </button>
      )}
      {f !== 'spam' && (
        <button type="button" class="btn sm" onClick={() => p.move('spam')} disabled={p.busy} aria-keyshortcuts="!">
          Spam
        </button>
      )}
      {f !== 'trash' && (
        <button type="button" class="btn sm" onClick={() => p.move('trash')} disabled={p.busy} aria-keyshortcuts="#">
          Trash
        </button>
      )}
      <button type="button" class="btn sm" onClick={p.unread} disabled={p.busy} aria-keyshortcuts="u">
        Mark unread
      </button>
      <div class="ib-menu">
        <button
          type="button"
          class="btn sm"
          aria-expanded={p.labelsOpen}
          aria-controls="ib-label-menu"
          aria-keyshortcuts="l"
          onClick={() => p.setLabelsOpen(!p.labelsOpen)}
        >
          Labels
        </button>
        {p.labelsOpen && (
          <fieldset id="ib-label-menu" class="ib-menu-pop card">
            <legend class="sr-only">Labels of this conversation</legend>
            {p.labels.length === 0 && <p class="muted small">No labels yet: add one in the sidebar.</p>}
            {p.labels.map((l) => (
              <label key={l.id} class="check">
                <input
                  type="checkbox"
                  checked={want[l.id] ?? on.has(l.id)}
                  onChange={(e) => {
                    const v = e.currentTarget.checked;
                    setWant({ ...want, [l.id]: v });
                    // Refused: the box shows the thread's labels again (the error is above).
                    p.toggleLabel(l, v).then((ok) => {
                      if (!ok)
                        setWant((w) => {
                          const { [l.id]: _gone, ...rest } = w;
                          return rest;
                        });
                    });
                  }}
                />
                <span class="ib-dot" style={{ background: l.color }} />
                {l.name}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <label class="inline small">
        <span>Assignee</span>
        <select
          value={p.summary.assignee_email ?? ''}
          disabled={p.busy}
          onChange={(e) => p.assign(e.currentTarget.value || null)}
        >
          <option value="">Nobody</option>
          {p.members.map((m) => (
            <option key={m.email} value={m.email}>
              {m.name || m.email}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

export function LabelChips({ labels }: { labels: Label[] }) {
  if (!labels.length) return null;
  return (
    <span class="ib-chips">
      {labels.map((l) => (
        <Fragment key={l.id}>
          <span class="ib-chip" style={chipStyle(l.color)}>
            {l.name}
          </span>
        </Fragment>
      ))}
    </span>
  );
}
