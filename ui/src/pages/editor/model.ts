// The email document edited by the visual editor (version 1 of the contract with the server: see
// src/templates/document.ts): settings and a list of blocks, columns holding blocks of their own.
// Pure functions only: new blocks with unique ids, move/duplicate/delete anywhere in the tree.
export type Align = 'left' | 'center' | 'right';
export interface Settings {
  width?: number;
  background?: string;
  content_background?: string;
  font_family?: string;
  text_color?: string;
  link_color?: string;
  preheader?: string;
}
interface Base {
  id: string;
  align?: Align;
}
export interface Heading extends Base {
  type: 'heading';
  text: string;
  level: 1 | 2 | 3;
  color?: string;
}
export interface Text extends Base {
  type: 'text';
  html: string;
}
export interface Image extends Base {
  type: 'image';
  src: string;
  alt: string;
  href?: string;
  width?: number;
}
export interface Button extends Base {
  type: 'button';
  text: string;
  href: string;
  background?: string;
  color?: string;
}
export interface Divider extends Base {
  type: 'divider';
  color?: string;
}
export interface Spacer extends Base {
  type: 'spacer';
  height: number;
}
export interface Columns extends Base {
  type: 'columns';
  columns: { blocks: Block[] }[];
}
export interface Footer extends Base {
  type: 'footer';
  html: string;
  unsubscribe: boolean;
}
export type Block = Heading | Text | Image | Button | Divider | Spacer | Columns | Footer;
export type Kind = Block['type'];
export interface EmailDocument {
  version: 1;
  settings: Settings;
  blocks: Block[];
}

export const DEFAULTS: Required<Settings> = {
  width: 600,
  background: '#f4f4f5',
  content_background: '#ffffff',
  font_family: 'Helvetica, Arial, sans-serif',
  text_color: '#111827',
  link_color: '#2563eb',
  preheader: '',
};
/** The stacks the server accepts (src/render/document-types.ts FONT_STACKS; a test keeps them equal). */
export const FONTS = [
  'Helvetica, Arial, sans-serif',
  'Arial, Helvetica, sans-serif',
  "Georgia, Times, 'Times New Roman', serif",
  "'Times New Roman', Times, serif",
  'Verdana, Geneva, sans-serif',
  'Tahoma, Verdana, sans-serif',
  "'Trebuchet MS', Helvetica, sans-serif",
  "'Courier New', Courier, monospace",
  "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
];
export const KINDS: [Kind, string][] = [
  ['heading', 'Heading'],
  ['text', 'Text'],
  ['image', 'Image'],
  ['button', 'Button'],
  ['divider', 'Divider'],
  ['spacer', 'Spacer'],
  ['columns', 'Columns'],
  ['footer', 'Footer'],
];
/** Blocks a column may hold: no columns inside columns, no footer. */
export const NESTED_KINDS = KINDS.filter(([k]) => k !== 'columns' && k !== 'footer');
export const MAX_BLOCKS = 200;

let seq = 0;
export const newId = () =>
  `b${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export function newBlock(kind: Kind): Block {
  const id = newId();
  switch (kind) {
    case 'heading':
      return { type: 'heading', id, text: 'A heading', level: 1 };
    case 'text':
      return { type: 'text', id, html: '<p>Write something.</p>' };
    case 'image':
      return { type: 'image', id, src: '', alt: '' };
    case 'button':
      return { type: 'button', id, text: 'Read more', href: 'https://example.com', align: 'center' };
    case 'divider':
      return { type: 'divider', id };
    case 'spacer':
      return { type: 'spacer', id, height: 24 };
    case 'columns':
      return { type: 'columns', id, columns: [{ blocks: [] }, { blocks: [] }] };
    case 'footer':
      return {
        type: 'footer',
        id,
        html: '<p>You receive this email because you signed up.</p>',
        unsubscribe: true,
      };
  }
}

/** A new email: a heading, a greeting with the contact's first name, a footer with the unsubscribe link. */
export const starter = (): EmailDocument => ({
  version: 1,
  settings: {},
  blocks: [
    { ...(newBlock('heading') as Heading), text: 'Hello' },
    { ...(newBlock('text') as Text), html: '<p>Hello {{{contact.first_name|there}}},</p>' },
    newBlock('footer'),
  ],
});

/** A copy with fresh ids everywhere (a duplicate must not repeat an id). */
export function cloneBlock(b: Block): Block {
  const c = JSON.parse(JSON.stringify(b)) as Block;
  const renew = (x: Block) => {
    x.id = newId();
    if (x.type === 'columns') for (const col of x.columns) col.blocks.forEach(renew);
  };
  renew(c);
  return c;
}

export const countBlocks = (blocks: Block[]): number =>
  blocks.reduce(
    (n, b) => n + 1 + (b.type === 'columns' ? b.columns.reduce((m, c) => m + countBlocks(c.blocks), 0) : 0),
    0,
  );

export function move<T>(list: T[], i: number, by: -1 | 1): T[] {
  const j = i + by;
  if (j < 0 || j >= list.length) return list;
  const out = list.slice();
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

/** A document read from the server, or null when it is not one this editor knows. */
export function asDocument(x: unknown): EmailDocument | null {
  if (!x || typeof x !== 'object') return null;
  const d = x as EmailDocument;
  if (d.version !== 1 || !Array.isArray(d.blocks)) return null;
  return { version: 1, settings: d.settings ?? {}, blocks: d.blocks };
}

/** What must be filled before the server can render it (saves a round trip and a 422 per keystroke). */
export function unfinished(blocks: Block[], where = ''): string[] {
  return blocks.flatMap((b, i): string[] => {
    const n = `${where}${i + 1}`;
    if (b.type === 'image' && !/^https?:\/\/\S/.test(b.src)) return [`Block ${n} (image) needs an http(s) image URL.`];
    if (b.type === 'button' && !b.href.trim()) return [`Block ${n} (button) needs a link.`];
    if (b.type === 'columns') return b.columns.flatMap((c, j) => unfinished(c.blocks, `${n}.${j + 1}.`));
    return [];
  });
}
