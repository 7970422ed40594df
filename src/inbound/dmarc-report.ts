// DMARC aggregate reports (RFC 7489 appendix C) as reporters mail them: an XML document, alone or
// in a gzip (.xml.gz) or zip (.zip) archive. Unpacks with limits (lib/inflate.ts: an archive that
// inflates past MAX_XML_BYTES is refused as it streams, whatever its headers claim) and parses
// the XML into plain values, in a worker thread (dmarc-report.worker.ts): a 49 MB report takes
// 12.5 s to parse, which must not hold the event loop. No storage, no DNS.
import { gunzipLimited, isGzip, isZip, unzipLimited, type Inflated } from '../lib/inflate.js';
import { siblingModule, WorkerTask, WorkerTaskError } from '../lib/worker-task.js';
import { XMLParser } from 'fast-xml-parser';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const MAX_XML_BYTES = 50 * 1024 * 1024;

export interface DmarcRow {
  sourceIp: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  headerFrom: string | null;
  authResults: {
    dkim: { domain: string; selector: string | null; result: string }[];
    spf: { domain: string; scope: string | null; result: string }[];
  };
}

export interface DmarcReport {
  orgName: string;
  orgEmail: string | null;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policy: {
    domain: string;
    adkim: string | null;
    aspf: string | null;
    p: string | null;
    sp: string | null;
    pct: number | null;
  };
  rows: DmarcRow[];
}

/** Whether an attachment may hold a report, by its type or name (checked again by its bytes). */
export function mayBeReport(contentType: string, filename: string | null): boolean {
  const f = (filename ?? '').toLowerCase();
  return (
    /(^|\/)(x-)?(zip|gzip|x-gzip|x-zip-compressed|xml|octet-stream)$/.test(contentType.toLowerCase()) ||
    /\.(xml|gz|zip)$/.test(f)
  );
}

/**
 * How many leading bytes `reportHeadPlausible` needs: the 4,096 characters parseAggregateReport
 * looks at for `<feedback` (UTF-8: at most 4 bytes each) behind a byte order mark.
 */
export const REPORT_HEAD_BYTES = 3 + 4 * 4096;

/**
 * Whether bytes starting like `head` (their first REPORT_HEAD_BYTES, or all of them) can hold a
 * report: a gzip or zip archive, or XML whose first 4,096 characters open a `<feedback` element,
 * the test parseAggregateReport applies. Anything else is refused by its first bytes rather than
 * copied, handed to the worker and decoded whole (issue 27: a 1 MB binary attachment cost 14 ms
 * of CPU there, a fifth of its message's).
 */
export function reportHeadPlausible(head: Uint8Array): boolean {
  if (isGzip(head) || isZip(head)) return true;
  const b = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, REPORT_HEAD_BYTES));
  return /<feedback[\s>]/.test(
    b
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .slice(0, 4096),
  );
}

export type Refusal = {
  reason: 'too_large' | 'too_many_files' | 'corrupt' | 'busy' | 'timeout' | 'failed';
  detail: string;
};
/** What one attachment held: its reports, or why it was not read. */
export interface ReportsRead {
  reports: DmarcReport[];
  refused?: Refusal;
}

const MAX_ZIP_FILES = 20; // a reporter sends one report per zip

/** The XML documents in an attachment: itself, or the inflated gzip, or each .xml entry of a zip. */
export async function unpackReport(bytes: Uint8Array): Promise<Inflated> {
  const limits = { maxBytes: MAX_XML_BYTES, maxFiles: MAX_ZIP_FILES, accept: (name: string) => /\.xml$/i.test(name) };
  if (isGzip(bytes)) return gunzipLimited(bytes, limits);
  if (isZip(bytes)) return unzipLimited(bytes, limits);
  return { ok: true, files: [{ name: '', data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }] };
}

const LISTS = new Set([
  'feedback.record',
  'feedback.record.auth_results.dkim',
  'feedback.record.auth_results.spf',
  'feedback.record.row.policy_evaluated.reason',
]);
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: false,
  isArray: (_name: string, jpath: unknown) => LISTS.has(String(jpath)),
});

type Node = Record<string, unknown> | undefined;
const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null;
const obj = (v: unknown): Node =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const low = (v: unknown, dflt = ''): string => (str(v) ?? dflt).toLowerCase();

/** Parses one XML document; null when it is not a DMARC aggregate report. Throws on broken XML. */
export function parseAggregateReport(xml: Buffer | string): DmarcReport | null {
  if (typeof xml !== 'string' && !reportHeadPlausible(xml)) return null; // before decoding all of it
  const text = (typeof xml === 'string' ? xml : xml.toString('utf8')).replace(/^\uFEFF/, '');
  if (!/<feedback[\s>]/.test(text.slice(0, 4096))) return null;
  const doc = parser.parse(text) as Record<string, unknown>;
  const fb = obj(doc.feedback);
  const meta = obj(fb?.report_metadata);
  const range = obj(meta?.date_range);
  const pol = obj(fb?.policy_published);
  const orgName = str(meta?.org_name);
  const reportId = str(meta?.report_id);
  const begin = Number(str(range?.begin));
  const end = Number(str(range?.end));
  const domain = str(pol?.domain)?.toLowerCase().replace(/\.$/, '');
  if (!fb || !orgName || !reportId || !Number.isFinite(begin) || !Number.isFinite(end) || !domain) return null;
  const rows: DmarcRow[] = [];
  for (const rec of (fb.record as unknown[] | undefined) ?? []) {
    const r = obj(rec);
    const row = obj(r?.row);
    const ev = obj(row?.policy_evaluated);
    const ip = str(row?.source_ip);
    const count = Number(str(row?.count) ?? '0');
    if (!row || !ip || !Number.isSafeInteger(count) || count < 0) continue;
    const auth = obj(r?.auth_results);
    rows.push({
      sourceIp: ip,
      count,
      disposition: low(ev?.disposition, 'none'),
      dkim: low(ev?.dkim, 'fail'),
      spf: low(ev?.spf, 'fail'),
      headerFrom: str(obj(r?.identifiers)?.header_from)?.toLowerCase() ?? null,
      authResults: {
        dkim: ((auth?.dkim as unknown[]) ?? [])
          .map(obj)
          .filter(Boolean)
          .map((d) => ({ domain: low(d!.domain), selector: str(d!.selector), result: low(d!.result, 'none') })),
        spf: ((auth?.spf as unknown[]) ?? [])
          .map(obj)
          .filter(Boolean)
          .map((s) => ({ domain: low(s!.domain), scope: str(s!.scope), result: low(s!.result, 'none') })),
      },
    });
  }
  const pct = str(pol?.pct);
  return {
    orgName,
    orgEmail: str(meta?.email),
    reportId,
    dateBegin: new Date(begin * 1000),
    dateEnd: new Date(end * 1000),
    policy: {
      domain,
      adkim: str(pol?.adkim),
      aspf: str(pol?.aspf),
      p: str(pol?.p),
      sp: str(pol?.sp),
      pct: pct === null ? null : Number(pct),
    },
    rows,
  };
}

/** Every report in one attachment's bytes (an archive may hold several), on the calling thread; unreadable parts are skipped. */
export async function readReports(bytes: Uint8Array): Promise<ReportsRead> {
  const unpacked = await unpackReport(bytes);
  if (!unpacked.ok) return { reports: [], refused: { reason: unpacked.reason, detail: unpacked.detail } };
  const reports: DmarcReport[] = [];
  for (const f of unpacked.files) {
    try {
      const r = parseAggregateReport(f.data);
      if (r) reports.push(r);
    } catch {
      /* not well-formed XML: not a report */
    }
  }
  return { reports };
}

// One worker for the process: reports are rare, and a queue of 16 attachments (10 MB each at most)
// bounds what a flood of them can hold in memory. 60 s covers a 50 MB report on a busy core.
const reader = new WorkerTask<Uint8Array, ReportsRead>(siblingModule(import.meta.url, 'dmarc-report.worker'), {
  timeoutMs: 60_000,
  maxPending: 16,
  maxHeapMb: 1024,
});

/** readReports in the worker thread, so neither inflating nor parsing holds the event loop. */
export async function reportsIn(bytes: Uint8Array): Promise<ReportsRead> {
  try {
    return await reader.run(bytes);
  } catch (err) {
    if (err instanceof WorkerTaskError) return { reports: [], refused: { reason: err.reason, detail: err.message } };
    throw err;
  }
}
