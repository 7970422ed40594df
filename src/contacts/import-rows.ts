// Reads an import's CSV as a stream into checked contact rows: a malformed file (not UTF-8,
// unclosed quote, a row with the wrong number of columns, no header, no email column) throws
// ImportFileError and fails the whole import; a row with a bad value is a FailedRow with its
// reason. Knows nothing of the database: import.job.ts stages and merges what this yields.
import { isUtf8 } from 'node:buffer';
import { Transform, type Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { AppError } from '../errors.js';
import { shown } from '../mime/addresses.js';
import type { FailedRow } from '../store/contact-imports.js';
import { CONTACT_FIELDS, type ColumnMap, type ContactField } from './import-options.js';
import { contactInput } from './input.js';

export class ImportFileError extends Error {}

export interface ImportedRow {
  row: number; // as a spreadsheet numbers it: the header is row 1, blank lines count; file errors say the same
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean | null;
  properties: Record<string, string | number>;
}

export type RowResult = { ok: true; value: ImportedRow } | { ok: false; failure: FailedRow };

const MAX_ROW_CHARS = 64 * 1024;
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);
const norm = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
// Header names taken for a field when column_map does not name its column.
const FIELD_HEADERS: Record<ContactField, string[]> = {
  email: ['email', 'email_address', 'e_mail'],
  first_name: ['first_name', 'firstname'],
  last_name: ['last_name', 'lastname'],
  unsubscribed: ['unsubscribed'],
};

/**
 * Fails on the first invalid UTF-8 sequence (a sequence cut by a chunk boundary is carried over
 * to the next chunk). Passes the bytes on unchanged: csv-parse decodes them itself.
 */
function utf8Check(): Transform {
  let carry = Buffer.alloc(0);
  let offset = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let cut = buf.length;
      for (let i = buf.length - 1; i >= Math.max(0, buf.length - 3); i--) {
        const b = buf[i];
        if (b < 0x80) break;
        if (b >= 0xc0) {
          // a lead byte: is its sequence complete?
          const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
          if (buf.length - i < need) cut = i;
          break;
        }
      }
      if (!isUtf8(buf.subarray(0, cut)))
        return done(
          new ImportFileError(
            `The file is not UTF-8 text (an invalid byte sequence after byte ${offset}); save it as "CSV UTF-8".`,
          ),
        );
      offset += cut;
      carry = Buffer.from(buf.subarray(cut));
      done(null, buf.subarray(0, cut));
    },
    flush(done) {
      if (carry.length)
        return done(
          new ImportFileError('The file is not UTF-8 text (it ends inside a character); save it as "CSV UTF-8".'),
        );
      done();
    },
  });
}

/**
 * The row a parse error is in, numbered as failed_rows are: the parser reads ahead of the rows
 * already checked, so the count comes from the error itself (rows and blank lines before it), not
 * from the loop.
 */
function fileError(err: unknown): Error {
  if (err instanceof ImportFileError || !(err instanceof CsvError)) return err as Error;
  const e = err as CsvError & { records?: number; empty_lines?: number; record?: unknown[] };
  const row = (e.records ?? 0) + (e.empty_lines ?? 0) + 1;
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new ImportFileError(`The file is not valid CSV: a quoted field opened in row ${row} is never closed.`);
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
      return new ImportFileError(
        `The file is not valid CSV: row ${row} has ${e.record?.length ?? 'a different number of'} columns, the header has ${(e as { columns?: unknown[] }).columns?.length ?? e.message.match(/expect (\d+)/)?.[1] ?? 'another number'}.`,
      );
    case 'CSV_INVALID_CLOSING_QUOTE':
      return new ImportFileError(
        `The file is not valid CSV: row ${row} has a quote inside a quoted field that is not doubled ("").`,
      );
    case 'CSV_MAX_RECORD_SIZE':
      return new ImportFileError(
        `The file is not valid CSV: row ${row} is longer than ${MAX_ROW_CHARS} characters (an unclosed quote?).`,
      );
    default:
      return new ImportFileError(`The file is not valid CSV: ${e.message} (row ${row}).`);
  }
}

/** Column positions of the fields and properties, from the header and the column map. */
function layout(header: string[], columns: ColumnMap) {
  const find = (name: string) => {
    const exact = header.indexOf(name);
    return exact >= 0 ? exact : header.findIndex((h) => h.trim().toLowerCase() === name.trim().toLowerCase());
  };
  const fields: Partial<Record<ContactField, number>> = {};
  for (const f of CONTACT_FIELDS) {
    const named = columns.fields[f];
    const at = named !== undefined ? find(named) : header.findIndex((h) => FIELD_HEADERS[f].includes(norm(h)));
    if (named !== undefined && at < 0)
      throw new ImportFileError(
        `The file has no column ${shown(named)} (column_map.${f}); its columns are ${header.map((h) => shown(h)).join(', ')}.`,
      );
    if (at >= 0) fields[f] = at;
  }
  if (fields.email === undefined)
    throw new ImportFileError(
      `The file has no email column: name one "email" or give its name in column_map.email (its columns are ${header.map((h) => shown(h)).join(', ')}).`,
    );
  const properties: [string, number][] = [];
  for (const [key, col] of Object.entries(columns.properties)) {
    const at = find(col);
    if (at < 0) throw new ImportFileError(`The file has no column ${shown(col)} (column_map.properties.${key}).`);
    properties.push([key, at]);
  }
  return { fields, properties };
}

/** Without a column map for properties, a column whose header is a property's key fills it. */
function propertiesByHeader(header: string[], defs: Map<string, string>, taken: Set<number>): [string, number][] {
  return header.flatMap((h, i) => (!taken.has(i) && defs.has(h.trim()) ? [[h.trim(), i] as [string, number]] : []));
}

const reasonOf = (err: unknown) => (err instanceof AppError ? err.message : String(err));

/**
 * The rows of the file, checked. `defs`: the team's properties (key -> type) when the run began;
 * a mapped property no longer there fails the rows that give it a value.
 */
export async function* importRows(
  input: Readable,
  columns: ColumnMap,
  defs: Map<string, string>,
): AsyncGenerator<RowResult> {
  // `info` gives each record its place in the file: records and blank lines before it count, so a
  // row is numbered as a spreadsheet shows it (header row 1, a quoted line break stays in its row).
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_CHARS,
    relax_column_count: false,
    info: true,
  });
  const source = input.pipe(utf8Check());
  source.on('error', (err) => parser.destroy(err));
  input.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let dataRows = 0;
  let map: ReturnType<typeof layout> | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { records: number; empty_lines: number };
    }>) {
      if (!map) {
        map = layout(record, columns);
        const taken = new Set([...Object.values(map.fields), ...map.properties.map(([, i]) => i)]);
        if (!Object.keys(columns.properties).length) map.properties.push(...propertiesByHeader(record, defs, taken));
        continue;
      }
      dataRows++;
      yield checkRow(record, info.records + info.empty_lines, map, defs);
    }
  } catch (err) {
    throw fileError(err);
  }
  if (!map) throw new ImportFileError('The file is empty: it needs a header row and at least one row of contacts.');
  if (dataRows === 0) throw new ImportFileError('The file has a header row but no contacts.');
}

function checkRow(record: string[], row: number, map: ReturnType<typeof layout>, defs: Map<string, string>): RowResult {
  const cell = (i: number | undefined) => (i === undefined ? '' : record[i].trim());
  const email = cell(map.fields.email);
  const fail = (reason: string): RowResult => ({ ok: false, failure: { row, email: email || null, reason } });
  if (!email) return fail('The row has no email address.');
  const unsub = cell(map.fields.unsubscribed).toLowerCase();
  if (unsub && !TRUE.has(unsub) && !FALSE.has(unsub))
    return fail(`\`unsubscribed\` must be true or false; got ${shown(cell(map.fields.unsubscribed))}.`);
  const properties: Record<string, string | number> = Object.create(null);
  for (const [key, i] of map.properties) {
    const v = cell(i);
    if (!v) continue;
    const type = defs.get(key);
    if (!type) return fail(`The property ${shown(key)} does not exist (it was deleted after the upload?).`);
    if (type === 'number') {
      if (!NUMBER.test(v) || !Number.isFinite(Number(v)))
        return fail(`The property ${shown(key)} is a number; got ${shown(v)}.`);
      properties[key] = Number(v);
    } else properties[key] = v;
  }
  try {
    const input = contactInput(
      {
        email,
        first_name: cell(map.fields.first_name) || undefined,
        last_name: cell(map.fields.last_name) || undefined,
        properties,
      },
      true,
    );
    return {
      ok: true,
      value: {
        row,
        email: input.email!,
        first_name: input.first_name ?? null,
        last_name: input.last_name ?? null,
        unsubscribed: unsub ? TRUE.has(unsub) : null,
        properties,
      },
    };
  } catch (err) {
    return fail(reasonOf(err));
  }
}
