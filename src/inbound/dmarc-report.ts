// DMARC aggregate reports (RFC 7489 appendix C) as reporters mail them: an XML document, alone or
// in a gzip (.xml.gz) or zip (.zip) archive. Unpacks with limits (a report is small; an archive
// that inflates past MAX_XML_BYTES is refused, so a zip bomb costs nothing) and parses the XML
// into plain values. Pure: no storage, no DNS.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { unzipSync } from 'fflate';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const MAX_XML_BYTES = 50 * 1024 * 1024;

export interface DmarcRow {
  sourceIp: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  headerFrom: string | null;
  authResults: { dkim: { domain: string; selector: string | null; result: string }[]; spf: { domain: string; scope: string | null; result: string }[] };
}

export interface DmarcReport {
  orgName: string;
  orgEmail: string | null;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policy: { domain: string; adkim: string | null; aspf: string | null; p: string | null; sp: string | null; pct: number | null };
  rows: DmarcRow[];
}

/** Whether an attachment may hold a report, by its type or name (checked again by its bytes). */
export function mayBeReport(contentType: string, filename: string | null): boolean {
  const f = (filename ?? '').toLowerCase();
  return /(^|\/)(x-)?(zip|gzip|x-gzip|x-zip-compressed|xml|octet-stream)$/.test(contentType.toLowerCase()) || /\.(xml|gz|zip)$/.test(f);
}

const gunzipAsync = promisify(gunzip);

/**
 * The XML documents in an attachment: itself, or the inflated gzip (off the event loop), or each
 * .xml entry of a zip (inflated in place: only the .xml entries, and a report zip is small).
 */
export async function unpackReport(bytes: Buffer): Promise<Buffer[]> {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return [await gunzipAsync(bytes, { maxOutputLength: MAX_XML_BYTES })];
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50) {
    let total = 0;
    const files = unzipSync(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
      filter: (f) => {
        if (!/\.xml$/i.test(f.name)) return false;
        total += f.originalSize;
        if (total > MAX_XML_BYTES) throw new Error('the zip inflates past the size limit');
        return true;
      },
    });
    return Object.values(files).map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength));
  }
  return [bytes];
}

const LISTS = new Set(['feedback.record', 'feedback.record.auth_results.dkim', 'feedback.record.auth_results.spf', 'feedback.record.row.policy_evaluated.reason']);
const parser = new XMLParser({
  ignoreAttributes: true, parseTagValue: false, trimValues: true, processEntities: false,
  isArray: (_name: string, jpath: unknown) => LISTS.has(String(jpath)),
});

type Node = Record<string, unknown> | undefined;
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null);
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const low = (v: unknown, dflt = ''): string => (str(v) ?? dflt).toLowerCase();

/** Parses one XML document; null when it is not a DMARC aggregate report. Throws on broken XML. */
export function parseAggregateReport(xml: Buffer | string): DmarcReport | null {
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
      sourceIp: ip, count, disposition: low(ev?.disposition, 'none'), dkim: low(ev?.dkim, 'fail'), spf: low(ev?.spf, 'fail'),
      headerFrom: str(obj(r?.identifiers)?.header_from)?.toLowerCase() ?? null,
      authResults: {
        dkim: ((auth?.dkim as unknown[]) ?? []).map(obj).filter(Boolean).map((d) => ({ domain: low(d!.domain), selector: str(d!.selector), result: low(d!.result, 'none') })),
        spf: ((auth?.spf as unknown[]) ?? []).map(obj).filter(Boolean).map((s) => ({ domain: low(s!.domain), scope: str(s!.scope), result: low(s!.result, 'none') })),
      },
    });
  }
  const pct = str(pol?.pct);
  return {
    orgName, orgEmail: str(meta?.email), reportId, dateBegin: new Date(begin * 1000), dateEnd: new Date(end * 1000),
    policy: { domain, adkim: str(pol?.adkim), aspf: str(pol?.aspf), p: str(pol?.p), sp: str(pol?.sp), pct: pct === null ? null : Number(pct) },
    rows,
  };
}

/** Every report in one attachment's bytes (an archive may hold several); unreadable parts are skipped. */
export async function reportsIn(bytes: Buffer): Promise<DmarcReport[]> {
  const out: DmarcReport[] = [];
  let docs: Buffer[];
  try { docs = await unpackReport(bytes); } catch { return out; }
  for (const d of docs) {
    try {
      const r = parseAggregateReport(d);
      if (r) out.push(r);
    } catch { /* not well-formed XML: not a report */ }
  }
  return out;
}
