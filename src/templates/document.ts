// The editor's document (issue 30, version 1) checked field by field: each failure a 422 naming its
// path (`document.blocks[3].href`), rich text sanitised (rich-text.ts), bounds enforced so that a
// document can never cost much to store or render: 512 KB of JSON, 200 blocks counted with the
// ones inside columns, columns only at the top and holding no columns or footer (depth 2).
// The result is a fresh object holding only the known fields: unknown ones are refused, not copied.
import { invalidField } from '../errors.js';
import { shown } from '../mime/addresses.js';
import {
  DEFAULT_SETTINGS,
  FONT_STACKS,
  type Align,
  type Block,
  type DocumentSettings,
  type EmailDocument,
  type LeafBlock,
} from '../render/document-types.js';
import { linkOf, sanitiseRichText } from './rich-text.js';

export const MAX_DOCUMENT_BYTES = 512 * 1024;
export const MAX_BLOCKS = 200;
const MAX_PLAIN = 2000; // heading text, image alt
const MAX_BUTTON = 200;
const MAX_RICH = 100_000; // one text or footer block's html
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

type Obj = Record<string, unknown>;
export interface CheckedDocument {
  document: EmailDocument;
  /** what the sanitiser dropped, by path ("document.blocks[2].html: dropped <script>") */
  warnings: string[];
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function keysOnly(o: Obj, at: string, allowed: string[]): void {
  for (const k of Object.keys(o))
    if (!allowed.includes(k))
      throw invalidField(`${at}.${k}`, `is not a field of this block (fields: ${allowed.join(', ')}).`);
}

function plain(v: unknown, at: string, max: number, required = true): string | undefined {
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw invalidField(at, 'must be a string.');
  if (v.length > max) throw invalidField(at, `must be at most ${max} characters.`);
  if (CONTROL.test(v)) throw invalidField(at, 'must not contain control characters.');
  return v;
}

function color(v: unknown, at: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !HEX.test(v)) throw invalidField(at, 'must be a colour written #rgb or #rrggbb.');
  return v.toLowerCase();
}

function int(v: unknown, at: string, min: number, max: number, required = true): number | undefined {
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalidField(at, `must be a whole number from ${min} to ${max}.`);
  return v;
}

function align(v: unknown, at: string): Align | undefined {
  if (v === undefined) return undefined;
  if (v !== 'left' && v !== 'center' && v !== 'right') throw invalidField(at, 'must be "left", "center" or "right".');
  return v;
}

function link(v: unknown, at: string, required: boolean): string | undefined {
  if (v === undefined && !required) return undefined;
  const l = typeof v === 'string' ? linkOf(v) : undefined;
  if (!l)
    throw invalidField(
      at,
      'must be an http(s):// or mailto: link, or start with a {{{tag}}}, without spaces or quotes.',
    );
  return l;
}

function rich(v: unknown, at: string, warnings: string[]): string {
  if (typeof v !== 'string') throw invalidField(at, 'must be a string of HTML.');
  if (v.length > MAX_RICH) throw invalidField(at, `must be at most ${MAX_RICH} characters.`);
  const s = sanitiseRichText(v);
  for (const d of s.dropped) warnings.push(`${at}: dropped ${d}`);
  return s.html;
}

/** undefined fields are left out so that the stored document carries only what was given. */
const compact = <T extends Obj>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function settingsOf(v: unknown): DocumentSettings | undefined {
  if (v === undefined) return undefined;
  const at = 'document.settings';
  if (!isObj(v)) throw invalidField(at, 'must be an object.');
  keysOnly(v, at, Object.keys(DEFAULT_SETTINGS));
  const font = v.font_family;
  if (font !== undefined && !FONT_STACKS.includes(font as (typeof FONT_STACKS)[number]))
    throw invalidField(`${at}.font_family`, `must be one of: ${FONT_STACKS.map((f) => shown(f)).join('; ')}.`);
  return compact({
    width: int(v.width, `${at}.width`, 320, 800, false),
    background: color(v.background, `${at}.background`),
    content_background: color(v.content_background, `${at}.content_background`),
    font_family: font as string | undefined,
    text_color: color(v.text_color, `${at}.text_color`),
    link_color: color(v.link_color, `${at}.link_color`),
    preheader: plain(v.preheader, `${at}.preheader`, 200, false),
  });
}

class Walk {
  count = 0;
  readonly ids = new Set<string>();
  readonly warnings: string[] = [];

  block(v: unknown, at: string, nested: boolean): Block {
    if (++this.count > MAX_BLOCKS)
      throw invalidField(at, `a document holds at most ${MAX_BLOCKS} blocks (counting those in columns).`);
    if (!isObj(v)) throw invalidField(at, 'must be a block object {type, id, ...}.');
    const id = v.id;
    if (typeof id !== 'string' || !id || id.length > 64 || CONTROL.test(id))
      throw invalidField(`${at}.id`, 'must be a string of 1-64 characters.');
    if (this.ids.has(id)) throw invalidField(`${at}.id`, `${shown(id)} is the id of another block.`);
    this.ids.add(id);
    const f = (k: string) => `${at}.${k}`;
    switch (v.type) {
      case 'heading':
        keysOnly(v, at, ['type', 'id', 'text', 'level', 'align', 'color']);
        return compact({
          type: 'heading' as const,
          id,
          text: plain(v.text, f('text'), MAX_PLAIN)!,
          level: int(v.level, f('level'), 1, 3) as 1 | 2 | 3,
          align: align(v.align, f('align')),
          color: color(v.color, f('color')),
        });
      case 'text':
        keysOnly(v, at, ['type', 'id', 'html', 'align']);
        return compact({
          type: 'text' as const,
          id,
          html: rich(v.html, f('html'), this.warnings),
          align: align(v.align, f('align')),
        });
      case 'image': {
        keysOnly(v, at, ['type', 'id', 'src', 'alt', 'href', 'width', 'align']);
        const src = typeof v.src === 'string' ? linkOf(v.src) : undefined;
        if (!src || !/^https?:\/\//i.test(src))
          throw invalidField(f('src'), 'must be an http:// or https:// address of the image.');
        return compact({
          type: 'image' as const,
          id,
          src,
          alt: plain(v.alt, f('alt'), MAX_PLAIN)!,
          href: link(v.href, f('href'), false),
          width: int(v.width, f('width'), 1, 800, false),
          align: align(v.align, f('align')),
        });
      }
      case 'button':
        keysOnly(v, at, ['type', 'id', 'text', 'href', 'background', 'color', 'align']);
        return compact({
          type: 'button' as const,
          id,
          text: plain(v.text, f('text'), MAX_BUTTON)!,
          href: link(v.href, f('href'), true)!,
          background: color(v.background, f('background')),
          color: color(v.color, f('color')),
          align: align(v.align, f('align')),
        });
      case 'divider':
        keysOnly(v, at, ['type', 'id', 'color']);
        return compact({ type: 'divider' as const, id, color: color(v.color, f('color')) });
      case 'spacer':
        keysOnly(v, at, ['type', 'id', 'height']);
        return { type: 'spacer', id, height: int(v.height, f('height'), 4, 200)! };
      case 'columns': {
        if (nested) throw invalidField(f('type'), 'columns cannot be placed inside columns.');
        keysOnly(v, at, ['type', 'id', 'columns']);
        const cols = v.columns;
        if (!Array.isArray(cols) || cols.length < 2 || cols.length > 3)
          throw invalidField(f('columns'), 'must be an array of 2 or 3 columns {blocks: [...]}.');
        const columns = cols.map((c, i) => {
          const cat = `${f('columns')}[${i}]`;
          if (!isObj(c) || !Array.isArray(c.blocks)) throw invalidField(cat, 'must be an object {blocks: [...]}.');
          keysOnly(c, cat, ['blocks']);
          return { blocks: this.list(c.blocks, `${cat}.blocks`, true) as LeafBlock[] };
        });
        return { type: 'columns', id, columns };
      }
      case 'footer':
        if (nested) throw invalidField(f('type'), 'a footer cannot be placed inside columns.');
        keysOnly(v, at, ['type', 'id', 'html', 'unsubscribe']);
        if (typeof v.unsubscribe !== 'boolean') throw invalidField(f('unsubscribe'), 'must be true or false.');
        return { type: 'footer', id, html: rich(v.html, f('html'), this.warnings), unsubscribe: v.unsubscribe };
      default:
        throw invalidField(f('type'), 'must be one of heading, text, image, button, divider, spacer, columns, footer.');
    }
  }

  list(v: unknown[], at: string, nested: boolean): Block[] {
    if (v.length > MAX_BLOCKS) throw invalidField(at, `a document holds at most ${MAX_BLOCKS} blocks.`);
    return v.map((b, i) => this.block(b, `${at}[${i}]`, nested));
  }
}

/** The checked, sanitised document; throws a 422 naming the first bad path. */
export function checkDocument(v: unknown): CheckedDocument {
  if (!isObj(v)) throw invalidField('document', 'must be an object {version: 1, settings, blocks}.');
  // Sized before anything is walked: the bound holds whatever the shape.
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(v));
  } catch {
    throw invalidField('document', 'is nested too deeply.'); // JSON.stringify's stack ends near 10,000 levels
  }
  if (bytes > MAX_DOCUMENT_BYTES)
    throw invalidField(
      'document',
      `must be at most ${MAX_DOCUMENT_BYTES / 1024} KB of JSON (got ${Math.ceil(bytes / 1024)} KB).`,
    );
  keysOnly(v, 'document', ['version', 'settings', 'blocks']);
  if (v.version !== 1) throw invalidField('document.version', 'must be 1.');
  if (!Array.isArray(v.blocks)) throw invalidField('document.blocks', 'must be an array of blocks.');
  const settings = settingsOf(v.settings);
  const walk = new Walk();
  const blocks = walk.list(v.blocks, 'document.blocks', false);
  return { document: compact({ version: 1 as const, settings, blocks }), warnings: walk.warnings };
}
