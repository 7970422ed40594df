// An email's body on the Templates and Broadcasts pages: the visual editor when it has a document
// (loaded on demand: the editor is a chunk of its own), else raw HTML in a textarea, with a way
// from one to the other, each after a confirmation since neither converts into the other.
import type { ComponentChildren } from 'preact';
import { lazyPage } from './Lazy';
import type { EmailDocument } from '../pages/editor/model';

export type { EmailDocument };
export const loadEditor = () => import('../pages/editor/index');
const VisualEditor = lazyPage(() => loadEditor().then((m) => m.VisualEditor));

export interface Body {
  document: EmailDocument | null;
  html: string;
}

export function EmailContent({
  id,
  label,
  value,
  title,
  disabled,
  onChange,
}: {
  id: string;
  label: ComponentChildren;
  value: Body;
  title: string;
  disabled?: boolean;
  onChange: (f: (b: Body) => Body) => void;
}) {
  if (value.document)
    return (
      <VisualEditor
        doc={value.document}
        html={value.html}
        title={title}
        disabled={disabled}
        onChange={(document) => onChange((b) => ({ ...b, document }))}
        onRendered={(html) => onChange((b) => ({ ...b, html }))}
        onDetach={(html) => onChange(() => ({ document: null, html }))}
      />
    );
  return (
    <div class="field">
      <div class="row spread">
        <label for={id}>{label}</label>
        {!disabled && (
          <button
            type="button"
            class="btn sm"
            onClick={async () => {
              if (
                value.html.trim() &&
                !confirm('Design this email in the visual editor? It starts from a new design: the HTML is replaced.')
              )
                return;
              const m = await loadEditor();
              onChange((b) => ({ document: m.starter(), html: b.html })); // the html until the first rendering
            }}
          >
            Use the visual editor
          </button>
        )}
      </div>
      <textarea
        id={id}
        class="mono"
        rows={12}
        value={value.html}
        onInput={(e) => {
          const html = e.currentTarget.value;
          onChange(() => ({ document: null, html }));
        }}
        disabled={disabled}
      />
    </div>
  );
}
