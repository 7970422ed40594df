// Date and timestamp text a client gives for PostgreSQL to read as timestamptz (a filter rule's
// value, a list's start_date): ISO 8601 or PostgreSQL's own output form ("2026-03-01 10:00:00+00"),
// accepted only when PostgreSQL accepts it too and reads the instant JavaScript reads. Issue 24:
// "2026-02-31", year 0000 and a -23:59 offset passed a Date.parse check, then every query of the
// team that cast them failed. test/lib/timestamp-text.test.ts holds this against the real server.

const FORM =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;

/** Whether `v` has the shape of a date or timestamp we read (its values may still be impossible). */
export const isTimestampForm = (v: string): boolean => FORM.test(v);

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0; // proleptic Gregorian, as both PostgreSQL and Date
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why PostgreSQL would refuse (or JavaScript misread) the date or timestamp `v`, or undefined when
 * it is fine. Conservative where the two differ: years 0001 to 9999 (PostgreSQL has no year 0),
 * hours 00-23 (PostgreSQL's 24:00 is refused), seconds 00-59, UTC offsets up to ±15:59 (PostgreSQL
 * refuses ±16:00 and beyond; Date.parse takes up to ±23:59).
 */
export function timestampProblem(v: string): string | undefined {
  const m = FORM.exec(v);
  if (!m)
    return 'must be an ISO 8601 date or timestamp (2026-01-31, 2026-01-31T09:00:00Z or 2026-01-31T09:00:00+02:00).';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1) return 'the year must be from 0001 to 9999.';
  if (mo < 1 || mo > 12) return `${m[2]} is not a month (01 to 12).`;
  const days = mo === 2 && leap(y) ? 29 : DAYS[mo - 1];
  if (d < 1 || d > days) return `${m[1]}-${m[2]} has no day ${m[3]}.`;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59))) {
    return 'the time must be from 00:00:00 to 23:59:59.';
  }
  if (m[8] !== undefined && (Number(m[8]) > 15 || (m[9] !== undefined && Number(m[9]) > 59)))
    return 'the UTC offset must be within ±15:59.';
  return undefined;
}

/** A date or timestamp of either form with its zone spelled out: UTC when none is given (SQL and JS then agree). */
export function timestampText(v: string): string {
  const t = v.replace(' ', 'T');
  if (!t.includes('T')) return `${t}T00:00:00Z`;
  if (/(Z|[+-]\d{2}(:?\d{2})?)$/.test(t.slice(11))) return t.replace(/([+-]\d{2})$/, '$1:00');
  return `${t}Z`;
}

/** Milliseconds since the epoch of a date or timestamp of either form (NaN when Date cannot read it). */
export const timestampMs = (v: string): number => Date.parse(timestampText(v));
