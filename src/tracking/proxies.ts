// Opens made by mail-privacy proxies rather than by a reader's client. Heuristics, kept in one
// place: Apple Mail Privacy Protection prefetches every message from Apple's network (17.0.0.0/8)
// with the bare user agent "Mozilla/5.0" whether or not it is read (a machine open); Gmail's and
// Yahoo's image proxies fetch when the message is displayed (a real open, but the IP and user
// agent are the proxy's).
export type OpenProxy = 'apple_mpp' | 'google_image_proxy' | 'yahoo_mail_proxy';

export function detectProxy(ip: string | undefined, userAgent: string | undefined): OpenProxy | null {
  const ua = (userAgent ?? '').trim();
  if (/GoogleImageProxy/i.test(ua)) return 'google_image_proxy';
  if (/YahooMailProxy/i.test(ua)) return 'yahoo_mail_proxy';
  const v4 = (ip ?? '').replace(/^::ffff:/i, '');
  if (/^17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || ua === 'Mozilla/5.0') return 'apple_mpp';
  return null;
}

/** The open was not made by a person reading the message. */
export const isMachineOpen = (proxy: OpenProxy | null): boolean => proxy === 'apple_mpp';
