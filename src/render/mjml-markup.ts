// A checked document (templates/document.ts) written as MJML, and its plain-text version. MJML
// (render/mjml.ts) makes the tables, inline styles and Outlook conditional comments; this file
// only chooses the components. Every string from the document is escaped here again (escape.ts),
// rich text arrives already sanitised. Dark mode: the classes mr-body, mr-content, mr-text and
// mr-footer carry the dark colours of DARK_CSS, applied by the client's prefers-color-scheme or
// by the class mr-dark on <html> or <body> (how the dashboard previews it: `<body class="mr-body mr-dark"`).
import { htmlToText } from '../mime/html-to-text.js';
import {
  DEFAULT_SETTINGS,
  type Block,
  type DocumentSettings,
  type EmailDocument,
  type LeafBlock,
} from './document-types.js';
import { escapeText } from './escape.js';

export const UNSUBSCRIBE_TAG = '{{{RESEND_UNSUBSCRIBE_URL}}}';
const HEADING_SIZE = { 1: 28, 2: 22, 3: 18 } as const;

const DARK_RULES = (p: string) => `
${p}.mr-body, ${p}.mr-body > div${p ? ', .mr-dark.mr-body' : ''} { background-color: #18181b !important; }
${p}.mr-content, ${p}.mr-content > table, ${p}.mr-content > table > tbody > tr > td { background-color: #27272a !important; background: #27272a !important; }
${p}.mr-text div, ${p}.mr-text h1, ${p}.mr-text h2, ${p}.mr-text h3, ${p}.mr-text p, ${p}.mr-text li { color: #f4f4f5 !important; }
${p}.mr-text a, ${p}.mr-footer a { color: #93c5fd !important; }
${p}.mr-footer div, ${p}.mr-footer p { color: #a1a1aa !important; }
${p}.mr-divider p { border-top-color: #52525b !important; }`;
/** Dark colours: by the reader's setting, or forced by the class mr-dark (the dashboard's preview). */
export const DARK_CSS = `@media (prefers-color-scheme: dark) {${DARK_RULES('')}\n}${DARK_RULES('.mr-dark ')}`;

const attr = (name: string, v: string | number | undefined) =>
  v === undefined || v === '' ? '' : ` ${name}="${escapeText(String(v))}"`;

function leaf(b: LeafBlock, s: Required<DocumentSettings>): string {
  switch (b.type) {
    case 'heading': {
      const size = HEADING_SIZE[b.level];
      const style = `margin:0;font-size:${size}px;line-height:1.25;font-weight:700;`;
      return `<mj-text${attr('css-class', b.color ? undefined : 'mr-text')}${attr('align', b.align)}${attr('color', b.color)} font-size="${size}px"><h${b.level} style="${style}">${escapeText(b.text)}</h${b.level}></mj-text>`;
    }
    case 'text':
      return `<mj-text css-class="mr-text"${attr('align', b.align)}>${b.html}</mj-text>`;
    case 'image':
      return `<mj-image${attr('src', b.src)}${attr('alt', b.alt)}${attr('href', b.href)}${attr('width', b.width && `${Math.min(b.width, s.width)}px`)}${attr('align', b.align)} />`;
    case 'button':
      return `<mj-button${attr('href', b.href)}${attr('background-color', b.background ?? s.link_color)}${attr('color', b.color ?? '#ffffff')}${attr('align', b.align)}>${escapeText(b.text)}</mj-button>`;
    case 'divider':
      return `<mj-divider css-class="mr-divider" border-width="1px"${attr('border-color', b.color ?? '#e4e4e7')} />`;
    case 'spacer':
      return `<mj-spacer height="${b.height}px" />`;
  }
}

const section = (inner: string, s: Required<DocumentSettings>) =>
  `<mj-section css-class="mr-content"${attr('background-color', s.content_background)} padding="8px 0">${inner}</mj-section>`;

function footer(b: Extract<Block, { type: 'footer' }>): string {
  const link = b.unsubscribe ? `<p><a href="${UNSUBSCRIBE_TAG}">Unsubscribe</a></p>` : '';
  return `<mj-text css-class="mr-footer" font-size="12px" color="#71717a" align="center">${b.html}${link}</mj-text>`;
}

/** The document as MJML: consecutive simple blocks share one section; columns and footers have their own. */
export function documentToMjml(doc: EmailDocument): string {
  const s = { ...DEFAULT_SETTINGS, ...doc.settings };
  const body: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) body.push(section(`<mj-column>${run.join('')}</mj-column>`, s));
    run = [];
  };
  for (const b of doc.blocks) {
    if (b.type === 'columns') {
      flush();
      body.push(
        section(b.columns.map((c) => `<mj-column>${c.blocks.map((x) => leaf(x, s)).join('')}</mj-column>`).join(''), s),
      );
    } else if (b.type === 'footer') {
      flush();
      body.push(section(`<mj-column>${footer(b)}</mj-column>`, s));
    } else run.push(leaf(b, s));
  }
  flush();
  const inline = `.mr-text p, .mr-footer p { margin: 0 0 12px 0; } .mr-text a, .mr-footer a { color: ${s.link_color}; }`;
  return `<mjml>
<mj-head>
${s.preheader ? `<mj-preview>${escapeText(s.preheader)}</mj-preview>` : ''}
<mj-attributes>
<mj-all font-family="${escapeText(s.font_family)}" />
<mj-text color="${s.text_color}" font-size="16px" line-height="1.5" padding="8px 24px" />
<mj-button font-size="16px" font-weight="600" border-radius="6px" inner-padding="12px 24px" padding="12px 24px" />
<mj-image padding="8px 24px" />
<mj-divider padding="12px 24px" />
</mj-attributes>
<mj-style inline="inline">${inline}</mj-style>
<mj-style>${DARK_CSS}</mj-style>
</mj-head>
<mj-body css-class="mr-body" background-color="${s.background}" width="${s.width}px">
${body.join('\n')}
</mj-body>
</mjml>`;
}

function leafText(b: LeafBlock): string {
  switch (b.type) {
    case 'heading':
      return b.text;
    case 'text':
      return htmlToText(b.html);
    case 'image':
      return b.href ? `${b.alt} (${b.href})` : b.alt;
    case 'button':
      return `${b.text}: ${b.href}`;
    case 'divider':
      return '----------';
    case 'spacer':
      return '';
  }
}

/** The plain-text version: the blocks in reading order, columns one after another. */
export function documentToText(doc: EmailDocument): string {
  const parts: string[] = [];
  for (const b of doc.blocks) {
    if (b.type === 'columns') for (const c of b.columns) parts.push(...c.blocks.map(leafText));
    else if (b.type === 'footer') {
      parts.push(htmlToText(b.html));
      if (b.unsubscribe) parts.push(`Unsubscribe: ${UNSUBSCRIBE_TAG}`);
    } else parts.push(leafText(b));
  }
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n\n');
}
