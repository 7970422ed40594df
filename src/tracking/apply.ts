// Rewrites an email's HTML for tracking (pure: no I/O): http(s) links become signed redirects
// through MAILROOM_PUBLIC_URL/t/c/..., and a 1x1 pixel MAILROOM_PUBLIC_URL/t/o/....gif is added.
// mailto: and other schemes, unsubscribe links (href or text mentioning "unsubscribe", or the
// List-Unsubscribe URL) and anchors marked data-mailroom-notrack are left alone.
export interface TrackingOptions {
  emailId: string;
  openTracking: boolean;
  clickTracking: boolean;
  baseUrl: string; // no trailing slash
  sign: { openToken(emailId: string): string; clickToken(emailId: string, url: string): string };
  unsubscribeUrls?: string[]; // from the List-Unsubscribe header
}

const ANCHOR = /<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi;
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const ENTITY = /&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decodeEntities = (s: string) =>
  s.replace(ENTITY, (_, dec, hex, name) =>
    name ? NAMED[name.toLowerCase()] : String.fromCodePoint(parseInt(dec ?? hex, dec ? 10 : 16)),
  );

/** The URLs in a List-Unsubscribe header value (`<https://...>, <mailto:...>`). */
export const listUnsubscribeUrls = (value: string | undefined): string[] =>
  [...(value ?? '').matchAll(/<([^>]+)>/g)].map((m) => m[1].trim());

export function applyTracking(html: string, o: TrackingOptions): string {
  let out = html;
  if (o.clickTracking) {
    const skip = new Set(o.unsubscribeUrls ?? []);
    out = out.replace(ANCHOR, (whole, attrs: string, inner: string) => {
      const m = HREF.exec(attrs);
      if (!m || /\sdata-mailroom-notrack\b/i.test(attrs)) return whole;
      const url = decodeEntities((m[2] ?? m[3] ?? m[4]).trim());
      if (
        !/^https?:\/\/[^\s]/i.test(url) ||
        skip.has(url) ||
        /unsubscribe/i.test(url) ||
        /unsubscribe/i.test(inner.replace(/<[^>]*>/g, ''))
      )
        return whole;
      const tracked = `${o.baseUrl}/t/c/${o.sign.clickToken(o.emailId, url)}`;
      return `<a${attrs.replace(HREF, () => `${m[1]}"${tracked}"`)}>${inner}</a>`;
    });
  }
  if (o.openTracking) {
    const pixel = `<img src="${o.baseUrl}/t/o/${o.sign.openToken(o.emailId)}.gif" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
    const at = out.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
    out = at >= 0 ? `${out.slice(0, at)}${pixel}${out.slice(at)}` : `${out}${pixel}`;
  }
  return out;
}
