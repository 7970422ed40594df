// Reads what the rules need out of an email's HTML in one pass over its tags: link targets, images
// (source, alt) and the visible words. Regular expressions, not a DOM: the send path budget is
// 100 us of CPU per email (BENCHMARKS.md, insights), and a parser costs milliseconds. Also the
// host helpers (host of a URL, organizational domain from the Public Suffix List via tldts, the
// library mailauth uses for DMARC alignment).
import { getDomain } from 'tldts';

export interface HtmlImage { src: string; alt: string | undefined }
export interface HtmlScan {
  links: string[];
  images: HtmlImage[];
  /** visible text without tags, styles, scripts and comments, whitespace collapsed */
  visibleText: string;
}

const TAG = /<(a|img)\b([^>]*)>/gi;
const attr = (attrs: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '') : undefined;
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decodeEntities = (s: string) => (s.includes('&') ? s.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_m, e: string) => ENTITIES[e]) : s);

export function scanHtml(html: string): HtmlScan {
  const links: string[] = [];
  const images: HtmlImage[] = [];
  for (const m of html.matchAll(TAG)) {
    if (m[1].length === 1) {
      const href = attr(m[2], 'href');
      if (href !== undefined) links.push(href.trim());
    } else {
      images.push({ src: (attr(m[2], 'src') ?? '').trim(), alt: attr(m[2], 'alt') });
    }
  }
  const visibleText = decodeEntities(html
    .replace(/<(style|script|head|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return { links, images, visibleText };
}

/**
 * The host of an absolute http(s) URL, lower-cased, or undefined for anything else (mailto:,
 * anchors, relative links, template placeholders). `http://bank.com@evil.test/` is evil.test.
 */
export function hostOf(url: string): string | undefined {
  const m = /^(?:https?:)?\/\/([^/?#\s]*)/i.exec(url);
  if (!m) return undefined;
  const authority = m[1].slice(m[1].lastIndexOf('@') + 1);
  const host = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.replace(/:\d*$/, '');
  return host ? host.toLowerCase().replace(/\.$/, '') : undefined;
}

export const isIpHost = (host: string): boolean => /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || host.startsWith('[') || /^0x[0-9a-f]+$|^\d{8,10}$/i.test(host);

/** The registrable domain (example.co.uk for a.b.example.co.uk); the host itself when unknown. */
export const orgDomain = (host: string): string => getDomain(host, { allowPrivateDomains: false }) ?? host;

/** Same organization: the relaxed alignment of DMARC (RFC 7489 3.1). */
export const aligned = (a: string, b: string): boolean => a === b || orgDomain(a) === orgDomain(b);

/** Lower-case words of three letters or more: what a text part must share with its HTML. */
export const wordsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
