// Reads what the rules need out of an email's HTML in one pass over its tags: link targets, images
// (source, alt) and the visible words. Regular expressions, not a DOM: the rules run once per email
// in the worker (BENCHMARKS.md, insights), and a parser costs milliseconds. Also the
// host helpers (host of a URL, organizational domain from the Public Suffix List via tldts, the
// library mailauth uses for DMARC alignment).
import { getDomain, parse } from 'tldts';

export interface HtmlImage {
  src: string;
  alt: string | undefined;
}

const WORD_CHAR = /\w/;
const attrRe = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i');
const HREF = attrRe('href');
const SRC = attrRe('src');
const ALT = attrRe('alt');
const attr = (attrs: string, re: RegExp): string | undefined => {
  const m = re.exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '') : undefined;
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decodeEntities = (s: string) =>
  s.includes('&') ? s.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_m, e: string) => ENTITIES[e]) : s;

/**
 * An email's HTML as the rules read it: links and images from one pass over the tags; the visible
 * text and its words only when a rule asks (measured: stripping and splitting a 16 KB newsletter
 * costs more than the rest of the rules together, and most emails never need it).
 */
export class HtmlScan {
  readonly links: string[] = [];
  readonly images: HtmlImage[] = [];
  private text?: string;
  private words?: Set<string>;
  private hosts?: string[];
  private imgHosts?: string[];

  constructor(readonly html: string) {
    // indexOf from one '<' to the next, not a global regular expression: measured 4x less CPU on
    // an 88 KB newsletter. Same tags as /<(a|img)\b([^>]*)>/gi.
    const n = html.length;
    for (let i = html.indexOf('<'); i !== -1 && i < n; i = html.indexOf('<', i + 1)) {
      const c = html.charCodeAt(i + 1) | 0x20;
      let nameEnd: number;
      if (c === 0x61)
        nameEnd = i + 2; // a
      else if (c === 0x69 && (html.charCodeAt(i + 2) | 0x20) === 0x6d && (html.charCodeAt(i + 3) | 0x20) === 0x67)
        nameEnd = i + 4; // img
      else continue;
      if (nameEnd < n && WORD_CHAR.test(html[nameEnd])) continue; // <abbr>, <image>: not the tag
      const end = html.indexOf('>', nameEnd);
      if (end === -1) break;
      const attrs = html.slice(nameEnd, end);
      if (nameEnd === i + 2) {
        const href = attr(attrs, HREF);
        if (href !== undefined) this.links.push(href.trim());
      } else {
        this.images.push({ src: (attr(attrs, SRC) ?? '').trim(), alt: attr(attrs, ALT) });
      }
      i = end;
    }
  }

  /** The distinct hosts of the absolute http(s) links (newsletters repeat a few hosts many times). */
  get linkHosts(): string[] {
    return (this.hosts ??= [...new Set(this.links.map(hostOf).filter((h): h is string => h !== undefined))]);
  }

  /** The distinct hosts of the images' absolute http(s) sources. */
  get imageHosts(): string[] {
    return (this.imgHosts ??= [
      ...new Set(this.images.map((i) => hostOf(i.src)).filter((h): h is string => h !== undefined)),
    ]);
  }

  /** Visible text without tags, styles, scripts and comments, whitespace collapsed. */
  get visibleText(): string {
    return (this.text ??= decodeEntities(
      this.html
        .replace(/<(style|script|head|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
        .replace(/<!--[\s\S]*?-->/g, ' ')
        .replace(/<[^>]*>/g, ' '),
    )
      .replace(/\s+/g, ' ')
      .trim());
  }

  /**
   * Words of visible text counted up to `limit`, stopping there: cheap for the common case of a
   * body full of text (it stops in the first paragraphs). Skips the head, styles and scripts.
   */
  wordsUpTo(limit: number): number {
    const body = this.html.search(/<body\b/i);
    let n = 0;
    let skipping = '';
    for (const m of this.html.slice(Math.max(0, body)).matchAll(/<(\/?)(style|script|title)\b[^>]*>|>([^<]+)/gi)) {
      if (m[2]) {
        skipping = m[1] ? '' : m[2].toLowerCase();
        continue;
      }
      if (skipping) continue;
      n += (decodeEntities(m[3]).match(/[\p{L}\p{N}]{3,}/gu) ?? []).length;
      if (n >= limit) return n;
    }
    return n;
  }

  get visibleWords(): Set<string> {
    return (this.words ??= wordsOf(this.visibleText));
  }
}

export const scanHtml = (html: string) => new HtmlScan(html);

/**
 * The host of an absolute http(s) URL, lower-cased, or undefined for anything else (mailto:,
 * anchors, relative links, template placeholders). `http://bank.com@evil.test/` is evil.test.
 */
export function hostOf(url: string): string | undefined {
  const m = /^(?:https?:)?\/\/([^/?#\s]*)/i.exec(url);
  if (!m) return undefined;
  const authority = m[1].slice(m[1].lastIndexOf('@') + 1);
  const host = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:\d*$/, '');
  return host ? host.toLowerCase().replace(/\.$/, '') : undefined;
}

export const isIpHost = (host: string): boolean =>
  /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || host.startsWith('[') || /^0x[0-9a-f]+$|^\d{8,10}$/i.test(host);

const orgCache = new Map<string, string>();
/** The registrable domain (example.co.uk for a.b.example.co.uk); the host itself when unknown. Cached: emails repeat hosts. */
export function orgDomain(host: string): string {
  let d = orgCache.get(host);
  if (d === undefined) {
    d = getDomain(host, { allowPrivateDomains: false }) ?? host;
    if (orgCache.size >= 10_000) orgCache.clear();
    orgCache.set(host, d);
  }
  return d;
}

/** Same organization: the relaxed alignment of DMARC (RFC 7489 3.1). */
export const aligned = (a: string, b: string): boolean => a === b || orgDomain(a) === orgDomain(b);

/** Lower-case words of three letters or more: what a text part must share with its HTML. */
export const wordsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

/** A name under a real top-level domain (paypal.com, example.co.uk), not a product name like Node.js. */
export const isRealDomain = (name: string): boolean => parse(name, { allowPrivateDomains: false }).isIcann === true;
