// The MJML call itself (mjml 5.4.1, async in version 5), loaded only by the render worker
// (mjml.worker.ts) and tests, so the API's own thread never loads MJML's 170 packages.
import mjml2html from 'mjml';
import type { EmailDocument } from './document-types.js';
import { documentToMjml, documentToText } from './mjml-markup.js';

export interface RenderedDocument {
  html: string;
  text: string;
  /** what MJML found odd (it still rendered) */
  warnings: string[];
}

const COLOR_SCHEME =
  '<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">';

/** On the calling thread: the body of the worker (render/mjml.ts runs it there), and of tests. */
export async function renderDocumentHere(doc: EmailDocument): Promise<RenderedDocument> {
  const out = await mjml2html(documentToMjml(doc), {
    validationLevel: 'soft',
    fonts: {}, // web-safe stacks only: no web font links
    ignoreIncludes: true,
    keepComments: false,
  });
  return {
    html: out.html.replace(/<head>/i, `<head>${COLOR_SCHEME}`),
    text: documentToText(doc),
    warnings: out.errors.map((e) => `mjml: ${e.formattedMessage ?? e.message}`),
  };
}
