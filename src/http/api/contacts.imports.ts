// /contacts/imports[/:id] (resend-compat 7.1 "Imports"): upload a CSV of contacts (multipart, the
// file streamed into the database, never whole in memory), list imports, read one. Registered
// before /contacts/:id so that "imports" is never taken for a contact id or address.
import { Type } from 'typebox';
import multipart from '@fastify/multipart';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { importCreate, importGet, importsList, MAX_IMPORT_BYTES, tooLarge } from '../../contacts/imports.js';
import { AppError } from '../../errors.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { tags } from './contacts.schema.js';

const jsonField = (description: string, example: string) =>
  Type.Optional(Type.String({ description, examples: [example] }));
const CreateBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description: `CSV file (UTF-8, comma-separated, a header row), at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
  }),
  column_map: jsonField(
    'JSON object: CSV column of email, first_name, last_name, unsubscribed, and properties {key: {column, type?}}; fields not mapped are found by their own name',
    '{"email":"Email","first_name":"First Name","properties":{"plan":{"column":"Plan","type":"string"}}}',
  ),
  on_conflict: Type.Optional(
    Type.Union([Type.Literal('upsert'), Type.Literal('skip')], {
      description: 'an address the team already has: update it, or leave it alone (default)',
    }),
  ),
  segments: jsonField(
    'JSON array of segments every imported contact joins',
    '[{"id":"78261eea-8f8b-4381-83c6-79fa7120f1cf"}]',
  ),
  topics: jsonField(
    'JSON array of topic subscriptions set on every imported contact',
    '[{"id":"b6d24b8e-af0b-4c3c-be0c-359bbd97381e","subscription":"opt_in"}]',
  ),
});
const Counts = Type.Object({
  total: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
});
const ImportView = Type.Object({
  object: Type.Literal('contact_import'),
  id: Type.String(),
  status: Type.Union([
    Type.Literal('queued'),
    Type.Literal('in_progress'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ]),
  created_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  counts: Counts,
  failed_rows: Type.Optional(
    Type.Array(
      Type.Object({ row: Type.Integer(), email: Type.Union([Type.String(), Type.Null()]), reason: Type.String() }),
      { description: 'Mailroom: the first 100 rows that failed (row 1 is the header)' },
    ),
  ),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Mailroom: why the whole import failed' }),
});
const ListQuery = Type.Intersect([
  PageQuerySchema,
  Type.Object({ status: Type.Optional(Type.String({ description: 'queued, in_progress, completed or failed' })) }),
]);
const Id = Type.Object({ id: Type.String() });

/** Multipart fields and parts of one import form; the file's own limit is MAX_IMPORT_BYTES. */
const LIMITS = { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10, fieldSize: 1024 * 1024, parts: 12 };

export default function register(app: ApiApp, deps: ApiDeps): void {
  // multipart/form-data is understood by the upload route only (a scope of its own): elsewhere it
  // stays an unsupported content type (415), as before.
  app.register(async (scope: ApiApp) => {
    await scope.register(multipart);
    uploadRoute(scope, deps);
  });
  app.get(
    '/contacts/imports',
    {
      schema: {
        tags,
        summary: 'List contact imports',
        querystring: ListQuery,
        response: {
          200: Type.Object({ object: Type.Literal('list'), has_more: Type.Boolean(), data: Type.Array(ImportView) }),
        },
      },
    },
    async (req) => {
      return importsList(deps.pool, authOf(req).team_id, parsePage(req.query, false), req.query.status);
    },
  );
  app.get(
    '/contacts/imports/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a contact import (counts, failed rows)',
        params: Id,
        response: { 200: ImportView },
      },
    },
    async (req) => {
      return importGet(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
}

function uploadRoute(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/contacts/imports',
    {
      schema: {
        tags,
        summary: 'Import contacts from a CSV file (a job; no contact.created events)',
        consumes: ['multipart/form-data'],
        body: CreateBody,
        response: { 201: Type.Object({ object: Type.Literal('contact_import'), id: Type.String() }) },
      },
      // The body is a stream the handler reads (and checks) itself: the schema above documents it.
      validatorCompiler: (s) => (s.httpPart === 'body' ? () => true : TypeBoxValidatorCompiler(s as never)),
    },
    async (req, reply) => {
      if (!req.isMultipart())
        throw new AppError('bad_request', 'Send the import as multipart/form-data with a `file` part (the CSV).');
      const body = await importCreate(deps.pool, authOf(req).team_id, async (saveFile) => {
        const fields: Record<string, string> = {};
        try {
          for await (const part of req.parts({ limits: LIMITS })) {
            if (part.type === 'file') {
              if (part.fieldname !== 'file')
                throw new AppError(
                  'validation_error',
                  `Invalid \`${part.fieldname}\` field: only \`file\` may be a file.`,
                );
              await saveFile(part.file);
            } else fields[part.fieldname] = String(part.value);
          }
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
          throw err;
        }
        return fields;
      });
      return reply.status(201).send(body);
    },
  );
}
