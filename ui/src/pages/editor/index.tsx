// The visual email editor (its own chunk, loaded only by the Templates and Broadcasts pages): the
// email's settings, the Personalize menu, the block list, and the previews of what the server
// renders from the document (POST /templates/render, a moment after the last change). The parent
// keeps the document and the last rendered html (saved with it, used by the contact preview).
import { useEffect, useState } from 'preact/hooks';
import { post } from '../../api';
import { BlockList } from './Blocks';
import { remember } from './caret';
import { countBlocks, DEFAULTS, MAX_BLOCKS, unfinished, type EmailDocument } from './model';
import { Personalize } from './Personalize';
import { Previews } from './Preview';
import { SettingsPanel } from './Settings';
import './editor.css';

export type { EmailDocument } from './model';
export { starter } from './model';

interface Rendered {
  html: string;
  text: string;
  warnings: string[];
}

export function VisualEditor({
  doc,
  html,
  title,
  disabled,
  onChange,
  onRendered,
  onDetach,
}: {
  doc: EmailDocument;
  html: string;
  title: string;
  disabled?: boolean;
  onChange: (doc: EmailDocument) => void;
  onRendered: (html: string) => void;
  onDetach: (html: string) => void;
}) {
  const [shown, setShown] = useState(html);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const key = JSON.stringify(doc);
  const todo = unfinished(doc.blocks);
  useEffect(() => {
    // read-only (a viewer, a sent broadcast): the saved html is what there is to see
    if (todo.length || disabled) {
      setBusy(false);
      return;
    }
    let live = true;
    setBusy(true);
    const timer = setTimeout(() => {
      post<Rendered>('/templates/render', { document: doc }).then(
        (r) => {
          if (!live) return;
          setShown(r.html);
          setWarnings(r.warnings ?? []);
          setError(undefined);
          setBusy(false);
          onRendered(r.html);
        },
        (e: Error) => {
          if (!live) return;
          setError(e.message);
          setBusy(false);
        },
      );
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  useEffect(() => {
    document.addEventListener('focusout', remember);
    return () => document.removeEventListener('focusout', remember);
  }, []);
  const total = countBlocks(doc.blocks);
  return (
    <div class="email-editor" data-testid="email-editor">
      <div class="editor-pane">
        <div class="row spread editor-bar">
          <span class="muted small">
            {total} block{total === 1 ? '' : 's'}
            {total >= MAX_BLOCKS ? ` (the most an email may have)` : ''}
          </span>
          <span class="row">
            {!disabled && <Personalize />}
            {!disabled && (
              <button
                type="button"
                class="btn ghost sm"
                onClick={() => {
                  if (
                    confirm(
                      'Edit the rendered HTML by hand? The email leaves the visual editor: later changes are made in the HTML only.',
                    )
                  )
                    onDetach(shown);
                }}
              >
                Edit as raw HTML
              </button>
            )}
          </span>
        </div>
        <fieldset disabled={disabled} class={disabled ? 'read-only' : undefined}>
          <SettingsPanel s={doc.settings} onChange={(settings) => onChange({ ...doc, settings })} />
          <BlockList
            where="top"
            blocks={doc.blocks}
            full={total >= MAX_BLOCKS}
            onChange={(blocks) => onChange({ ...doc, blocks })}
          />
        </fieldset>
      </div>
      <div class="preview-pane">
        {error && (
          <div class="alert bad" role="alert">
            {error}
          </div>
        )}
        {todo.length > 0 && (
          <div class="alert warn" data-testid="editor-todo">
            {todo.join(' ')} The preview shows the last complete version.
          </div>
        )}
        {warnings.length > 0 && (
          <div class="alert warn" data-testid="render-warnings">
            {warnings.join(' ')}
          </div>
        )}
        <Previews html={shown} width={doc.settings.width ?? DEFAULTS.width} title={title} busy={busy} />
      </div>
    </div>
  );
}
