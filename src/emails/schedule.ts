// `scheduled_at` parsing: ISO 8601 or the small natural-language set Resend documents
// ("in 1 min", "tomorrow at 9am", "Friday at 3pm ET"). Pure: the caller passes `now`.
// Times without a zone are UTC. The result must lie in (now, now + 30 days].
import { AppError, invalidField } from '../errors.js';

export const MAX_SCHEDULE_MS = 30 * 24 * 3600 * 1000;

/** Abbreviations users write. Generic names follow DST (IANA zone); explicit ones are fixed offsets (minutes). */
const ZONES: Record<string, string | number> = {
  utc: 0,
  gmt: 0,
  z: 0,
  et: 'America/New_York',
  est: -300,
  edt: -240,
  ct: 'America/Chicago',
  cst: -360,
  cdt: -300,
  mt: 'America/Denver',
  mst: -420,
  mdt: -360,
  pt: 'America/Los_Angeles',
  pst: -480,
  pdt: -420,
  akt: 'America/Anchorage',
  hst: -600,
  bst: 60,
  ist: 330,
  wet: 'Europe/Lisbon',
  cet: 'Europe/Berlin',
  cest: 120,
  eet: 'Europe/Athens',
  eest: 180,
  jst: 540,
  kst: 540,
  sgt: 480,
  hkt: 480,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

const UNITS: Record<string, number> = {
  s: 1e3,
  sec: 1e3,
  second: 1e3,
  m: 6e4,
  min: 6e4,
  minute: 6e4,
  h: 36e5,
  hr: 36e5,
  hour: 36e5,
  d: 864e5,
  day: 864e5,
  w: 6048e5,
  week: 6048e5,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const RELATIVE = /^in\s+(\d+|an?)\s*([a-z]+?)s?$/;
const CLOCK = /^(?:(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|noon|midnight)$/;
const DAY =
  /^(?:(?:on\s+)?(today|tomorrow|(?:next\s+|this\s+)?(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)[a-z]*)\s+)?(?:at\s+)?(.+)$/;

/** Offset (minutes east of UTC) of an IANA zone at an instant. */
function zoneOffset(zone: string, at: number): number {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60000);
}

type Zone = string | number;
const offsetAt = (zone: Zone, at: number): number => (typeof zone === 'number' ? zone : zoneOffset(zone, at));

/** The instant at which the wall clock in `zone` reads the given fields (two passes settle DST edges). */
function wallToInstant(zone: Zone, y: number, mo: number, d: number, h: number, mi: number): number {
  const wall = Date.UTC(y, mo, d, h, mi);
  let t = wall - offsetAt(zone, wall) * 60000;
  t = wall - offsetAt(zone, t) * 60000;
  return t;
}

/** Splits a trailing zone (`ET`, `UTC+2`, `+05:30`, `Europe/Paris`) off the phrase. */
function splitZone(s: string): { rest: string; zone: Zone } | null {
  const m =
    /^(.*?)\s*(?:\(?\b([a-z]{1,5})\)?|(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?|\b([a-z]+\/[a-z_]+(?:\/[a-z_]+)?))$/i.exec(
      s,
    );
  if (m?.[2] && ZONES[m[2].toLowerCase()] !== undefined) return { rest: m[1], zone: ZONES[m[2].toLowerCase()] };
  if (m?.[3] && m[1]) return { rest: m[1], zone: (m[3] === '-' ? -1 : 1) * (+m[4] * 60 + +(m[5] ?? 0)) };
  if (m?.[6]) {
    const iana = s.slice(s.length - m[6].length); // keep the original case for Intl
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: iana });
      return { rest: m[1], zone: iana };
    } catch {
      return null;
    }
  }
  return { rest: s, zone: 0 };
}

function parseClock(s: string): { h: number; mi: number } | null {
  const m = CLOCK.exec(s);
  if (!m) return null;
  if (s === 'noon') return { h: 12, mi: 0 };
  if (s === 'midnight') return { h: 0, mi: 0 };
  let h = +m[1];
  const mi = m[2] ? +m[2] : 0;
  const ampm = m[3]?.replace(/\./g, '');
  if (mi > 59) return null;
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (ampm === 'pm' ? 12 : 0);
  } else if (h > 23 || m[2] === undefined) return null; // "at 9" alone is ambiguous
  return { h, mi };
}

function parseNatural(input: string, now: Date): Date | null {
  const s = input.toLowerCase().replace(/\s+/g, ' ').replace(/,/g, '').trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const unit = UNITS[rel[2]] ?? UNITS[rel[2].replace(/s$/, '')];
    const n = /^an?$/.test(rel[1]) ? 1 : +rel[1];
    return unit ? new Date(now.getTime() + n * unit) : null;
  }
  const z = splitZone(input.replace(/\s+/g, ' ').replace(/,/g, '').trim());
  if (!z) return null;
  const m = DAY.exec(z.rest.toLowerCase());
  if (!m) return null;
  const clock = parseClock(m[2]);
  if (!clock) return null;
  const day = m[1];
  // Today's date on the wall clock of the target zone.
  const local = new Date(now.getTime() + offsetAt(z.zone, now.getTime()) * 60000);
  const [y, mo, d, dow] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), local.getUTCDay()];
  const at = (plusDays: number) => new Date(wallToInstant(z.zone, y, mo, d + plusDays, clock.h, clock.mi));
  if (!day) return at(0) > now ? at(0) : at(1); // "at 3pm": today, or tomorrow when already past
  if (day === 'today') return at(0);
  if (day === 'tomorrow') return at(1);
  const name = day.replace(/^(next|this)\s+/, '');
  const target = WEEKDAYS.findIndex((w) => w.startsWith(name.slice(0, 3)) && w.startsWith(name.replace(/s$/, '')));
  if (target < 0) return null;
  let plus = (target - dow + 7) % 7;
  // "Friday" is the next Friday whose time is still ahead (today included); "next Friday" never means today.
  if (day.startsWith('next') && plus === 0) plus = 7;
  if (plus === 0 && at(0) <= now) plus = 7;
  return at(plus);
}

function parseIso(s: string): Date | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '0', tz] = m;
  const ms = Math.round(+`0.${frac}` * 1000);
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec, ms);
  const check = new Date(wall);
  if (check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +sec > 59) return null;
  let offset = 0;
  if (tz && tz.toUpperCase() !== 'Z') {
    const t = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)!;
    offset = (t[1] === '-' ? -1 : 1) * (+t[2] * 60 + +(t[3] ?? 0));
  }
  return new Date(wall - offset * 60000);
}

/** Parses `scheduled_at`; throws `validation_error` when unparseable, in the past, or more than 30 days ahead. */
export function parseScheduledAt(input: string, now: Date): Date {
  if (typeof input !== 'string' || !input.trim()) throw invalidField('scheduled_at', 'must be a non-empty string.');
  const s = input.trim();
  const when = s.length <= 100 ? (parseIso(s) ?? parseNatural(s, now)) : null;
  if (!when || Number.isNaN(when.getTime())) {
    throw invalidField(
      'scheduled_at',
      `could not understand ${JSON.stringify(s.slice(0, 100))}. Use ISO 8601 (2025-06-01T09:00:00Z) or phrases like "in 10 minutes", "tomorrow at 9am ET", "Friday at 3pm".`,
    );
  }
  if (when.getTime() <= now.getTime())
    throw new AppError('validation_error', `scheduled_at must be in the future (got ${when.toISOString()}).`);
  if (when.getTime() - now.getTime() > MAX_SCHEDULE_MS)
    throw new AppError('validation_error', `scheduled_at must be within 30 days (got ${when.toISOString()}).`);
  return when;
}
