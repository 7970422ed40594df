// POST /templates/render (Mailroom's own, issue 30): the visual editor's document checked and
// rendered to email HTML and text, for the editor's previews. Nothing is stored. The checks and
// the rendering (off the event loop) are templates/document-input.ts's, the same as on save.
import { Type } from 'typebox';
import { renderChecked } from '../../templates/document-input.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { DOCUMENT_DESCRIPTION } from './templates.schema.js';

const Body = Type.Object(
  { document: Type.Unknown({ description: DOCUMENT_DESCRIPTION }) },
  { additionalProperties: true },
);

export default function register(app: ApiApp, _deps: ApiDeps): void {
  app.post(
    '/templates/render',
    {
      schema: {
        tags: ['Templates'],
        summary:
          'Mailroom: render an email document to HTML and text (personalization tags kept for each send to fill); nothing is stored',
        body: Body,
      },
    },
    async (req) => {
      const r = await renderChecked((req.body as { document?: unknown } | undefined)?.document);
      return { object: 'rendered_document' as const, html: r.html, text: r.text, warnings: r.warnings };
    },
  );
}
