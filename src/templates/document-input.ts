// The `document` field of templates and broadcasts (issue 30), shared by both: checked
// (document.ts), then rendered off the event loop (render/mjml.ts) into the html and text that
// sends use. The html is always the server's rendering of the document, never the caller's.
import { invalidField } from '../errors.js';
import type { EmailDocument } from '../render/document-types.js';
import { renderDocument } from '../render/mjml.js';
import { checkDocument } from './document.js';

export interface DocumentContent {
  document: EmailDocument;
  html: string;
  text: string;
  warnings: string[];
}

/** A document checked and rendered (POST /templates/render, and each save). */
export async function renderChecked(v: unknown): Promise<DocumentContent> {
  const c = checkDocument(v);
  const r = await renderDocument(c.document);
  return { document: c.document, html: r.html, text: r.text, warnings: [...c.warnings, ...r.warnings] };
}

/**
 * The document of a create or update body: undefined when not given, null when cleared (raw HTML
 * from now on). `html` alongside a document is refused: the html is rendered from it.
 */
export async function documentInput(body: Record<string, unknown>): Promise<DocumentContent | null | undefined> {
  if (body.document === undefined) return undefined;
  if (body.document === null) return null;
  if (body.html !== undefined && body.html !== null)
    throw invalidField('html', 'give either `html` or `document`, not both: the html is rendered from the document.');
  return renderChecked(body.document);
}
