// The block list of the visual editor: each block as a card with its fields and move up/down,
// duplicate and delete; "Add a block" at the end. Columns hold block lists of their own (no columns
// or footer inside them).
import { useState } from 'preact/hooks';
import { RichText } from './RichText';
import {
  cloneBlock,
  DEFAULTS,
  KINDS,
  move,
  NESTED_KINDS,
  newBlock,
  type Align,
  type Block,
  type Columns,
  type Kind,
} from './model';

const LABEL = Object.fromEntries(KINDS) as Record<Kind, string>;

export function BlockList({
  blocks,
  onChange,
  nested,
  full,
  where,
}: {
  blocks: Block[];
  onChange: (b: Block[]) => void;
  nested?: boolean;
  full: boolean;
  where: string;
}) {
  const [kind, setKind] = useState<Kind>(nested ? 'text' : 'heading');
  const at = (i: number, b: Block | null) =>
    onChange(b ? blocks.map((x, j) => (j === i ? b : x)) : blocks.filter((_, j) => j !== i));
  return (
    <div class="blocks">
      {blocks.length === 0 && <p class="muted small">No blocks yet.</p>}
      <ol class="block-list">
        {blocks.map((b, i) => (
          <li key={b.id} class="block" data-testid="block" data-type={b.type}>
            <div class="block-head">
              <strong>{LABEL[b.type]}</strong>
              <span class="actions">
                <button
                  type="button"
                  class="btn ghost sm"
                  aria-label={`Move ${LABEL[b.type]} ${i + 1} up`}
                  disabled={i === 0}
                  onClick={() => onChange(move(blocks, i, -1))}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="btn ghost sm"
                  aria-label={`Move ${LABEL[b.type]} ${i + 1} down`}
                  disabled={i === blocks.length - 1}
                  onClick={() => onChange(move(blocks, i, 1))}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="btn ghost sm"
                  aria-label={`Duplicate ${LABEL[b.type]} ${i + 1}`}
                  disabled={full}
                  onClick={() => onChange([...blocks.slice(0, i + 1), cloneBlock(b), ...blocks.slice(i + 1)])}
                >
                  Duplicate
                </button>
                <button
                  type="button"
                  class="btn bad ghost sm"
                  aria-label={`Delete ${LABEL[b.type]} ${i + 1}`}
                  onClick={() => at(i, null)}
                >
                  Delete
                </button>
              </span>
            </div>
            <BlockFields b={b} onChange={(x) => at(i, x)} full={full} where={`${where}-${i}`} />
          </li>
        ))}
      </ol>
      <div class="row">
        <label class="sr-only" for={`add-${where}`}>
          Block to add{nested ? ' to this column' : ''}
        </label>
        <select id={`add-${where}`} value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          {(nested ? NESTED_KINDS : KINDS).map(([k, l]) => (
            <option key={k} value={k}>
              {l}
            </option>
          ))}
        </select>
        <button type="button" class="btn sm" disabled={full} onClick={() => onChange([...blocks, newBlock(kind)])}>
          {nested ? 'Add to column' : 'Add block'}
        </button>
      </div>
    </div>
  );
}

function Field({ id, label, children }: { id: string; label: string; children: preact.ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

function AlignPick({ value, onChange, id }: { value?: Align; onChange: (a: Align) => void; id: string }) {
  return (
    <Field id={id} label="Align">
      <select id={id} value={value ?? 'left'} onChange={(e) => onChange(e.currentTarget.value as Align)}>
        <option value="left">Left</option>
        <option value="center">Center</option>
        <option value="right">Right</option>
      </select>
    </Field>
  );
}

/** A colour, or the renderer's default (shown, and what "Default" goes back to). */
function Colour({
  id,
  label,
  value,
  fallback,
  onChange,
}: {
  id: string;
  label: string;
  value?: string;
  fallback: string;
  onChange: (v?: string) => void;
}) {
  return (
    <Field id={id} label={label}>
      <span class="row">
        <input id={id} type="color" value={value ?? fallback} onInput={(e) => onChange(e.currentTarget.value)} />
        {value && (
          <button type="button" class="btn ghost sm" onClick={() => onChange(undefined)}>
            Default
          </button>
        )}
      </span>
    </Field>
  );
}

function BlockFields({
  b,
  onChange,
  full,
  where,
}: {
  b: Block;
  onChange: (b: Block) => void;
  full: boolean;
  where: string;
}) {
  const id = (k: string) => `blk-${where}-${k}`;
  const text = (k: string, label: string, value: string, set: (v: string) => void, placeholder = '') => (
    <Field id={id(k)} label={label}>
      <input id={id(k)} value={value} placeholder={placeholder} onInput={(e) => set(e.currentTarget.value)} />
    </Field>
  );
  switch (b.type) {
    case 'heading':
      return (
        <div class="block-fields">
          {text('text', 'Heading text', b.text, (v) => onChange({ ...b, text: v }))}
          <div class="field-row">
            <Field id={id('level')} label="Size">
              <select
                id={id('level')}
                value={String(b.level)}
                onChange={(e) => onChange({ ...b, level: Number(e.currentTarget.value) as 1 | 2 | 3 })}
              >
                <option value="1">Large (h1)</option>
                <option value="2">Medium (h2)</option>
                <option value="3">Small (h3)</option>
              </select>
            </Field>
            <AlignPick id={id('align')} value={b.align} onChange={(a) => onChange({ ...b, align: a })} />
            <Colour
              id={id('color')}
              label="Colour"
              value={b.color}
              fallback={DEFAULTS.text_color}
              onChange={(c) => onChange({ ...b, color: c })}
            />
          </div>
        </div>
      );
    case 'text':
      return (
        <div class="block-fields">
          <RichText id={id('html')} label="Text" value={b.html} onChange={(html) => onChange({ ...b, html })} />
          <AlignPick id={id('align')} value={b.align} onChange={(a) => onChange({ ...b, align: a })} />
        </div>
      );
    case 'image':
      return (
        <div class="block-fields">
          {text('src', 'Image URL (https)', b.src, (v) => onChange({ ...b, src: v }), 'https://example.com/photo.jpg')}
          {text('alt', 'Alt text (said when images are off)', b.alt, (v) => onChange({ ...b, alt: v }))}
          {text('href', 'Link (optional)', b.href ?? '', (v) => onChange({ ...b, href: v || undefined }), 'https://')}
          <div class="field-row">
            <Field id={id('width')} label="Width (px, empty: full)">
              <input
                id={id('width')}
                type="number"
                min={16}
                max={800}
                value={b.width ?? ''}
                onInput={(e) =>
                  onChange({ ...b, width: e.currentTarget.value ? Number(e.currentTarget.value) : undefined })
                }
              />
            </Field>
            <AlignPick id={id('align')} value={b.align} onChange={(a) => onChange({ ...b, align: a })} />
          </div>
        </div>
      );
    case 'button':
      return (
        <div class="block-fields">
          {text('text', 'Button text', b.text, (v) => onChange({ ...b, text: v }))}
          {text('href', 'Button link', b.href, (v) => onChange({ ...b, href: v }), 'https:// or {{{TAG}}}')}
          <div class="field-row">
            <AlignPick id={id('align')} value={b.align} onChange={(a) => onChange({ ...b, align: a })} />
            <Colour
              id={id('bg')}
              label="Background"
              value={b.background}
              fallback={DEFAULTS.link_color}
              onChange={(c) => onChange({ ...b, background: c })}
            />
            <Colour
              id={id('color')}
              label="Text colour"
              value={b.color}
              fallback="#ffffff"
              onChange={(c) => onChange({ ...b, color: c })}
            />
          </div>
        </div>
      );
    case 'divider':
      return (
        <div class="block-fields">
          <Colour
            id={id('color')}
            label="Colour"
            value={b.color}
            fallback="#e4e4e7"
            onChange={(c) => onChange({ ...b, color: c })}
          />
        </div>
      );
    case 'spacer':
      return (
        <div class="block-fields">
          <Field id={id('height')} label="Height (4 to 200 px)">
            <input
              id={id('height')}
              type="number"
              min={4}
              max={200}
              value={b.height}
              onInput={(e) =>
                onChange({ ...b, height: Math.min(200, Math.max(4, Number(e.currentTarget.value) || 4)) })
              }
            />
          </Field>
        </div>
      );
    case 'columns':
      return <ColumnsFields b={b} onChange={onChange} full={full} where={where} />;
    case 'footer':
      return (
        <div class="block-fields">
          <RichText id={id('html')} label="Footer text" value={b.html} onChange={(html) => onChange({ ...b, html })} />
          <label class="check">
            <input
              type="checkbox"
              checked={b.unsubscribe}
              onChange={(e) => onChange({ ...b, unsubscribe: e.currentTarget.checked })}
            />
            Unsubscribe link (each recipient's own preference page)
          </label>
        </div>
      );
  }
}

function ColumnsFields({
  b,
  onChange,
  full,
  where,
}: {
  b: Columns;
  onChange: (b: Block) => void;
  full: boolean;
  where: string;
}) {
  const count = b.columns.length;
  return (
    <div class="block-fields">
      <div class="segmented" role="group" aria-label="Number of columns">
        {[2, 3].map((n) => (
          <button
            key={n}
            type="button"
            class="btn sm"
            aria-pressed={count === n}
            onClick={() =>
              onChange({
                ...b,
                columns:
                  n > count
                    ? [...b.columns, { blocks: [] }]
                    : [
                        ...b.columns.slice(0, n - 1),
                        { blocks: [...b.columns[n - 1].blocks, ...b.columns.slice(n).flatMap((c) => c.blocks)] },
                      ],
              })
            }
          >
            {n} columns
          </button>
        ))}
      </div>
      <div class="columns-edit" style={{ '--cols': count }}>
        {b.columns.map((c, i) => (
          <div class="column-edit" key={i} data-testid="column">
            <div class="muted small">Column {i + 1}</div>
            <BlockList
              nested
              full={full}
              where={`${where}-c${i}`}
              blocks={c.blocks}
              onChange={(blocks) => onChange({ ...b, columns: b.columns.map((x, j) => (j === i ? { blocks } : x)) })}
            />
          </div>
        ))}
      </div>
    </div>
  );
}
