// The HTML recipients get from a domain that tracks opens or clicks: the send path composes it,
// and the compose insights (insights/compose-insights.ts) measure it, so both see the same bytes.
import type { DomainRow } from '../store/domains.js';
import { applyTracking, listUnsubscribeUrls } from './apply.js';
import type { TrackingSigner } from './tokens.js';

type TrackingDomain = Pick<DomainRow, 'open_tracking' | 'click_tracking'>;

/**
 * The HTML recipients get when the domain tracks opens or clicks (links and pixel on
 * MAILROOM_PUBLIC_URL), or undefined when it is sent as given.
 */
export function trackedHtml(o: {
  id: string;
  html: string | undefined;
  headers: Record<string, string>;
  domain: TrackingDomain;
  publicUrl: string;
  sign: TrackingSigner | undefined;
  ownUnsubscribeUrl: string | undefined;
}): string | undefined {
  if (!o.sign || o.html === undefined || !(o.domain.open_tracking || o.domain.click_tracking)) return undefined;
  const unsubscribe = Object.entries(o.headers).find(([k]) => k.toLowerCase() === 'list-unsubscribe')?.[1];
  return applyTracking(o.html, {
    emailId: o.id,
    openTracking: o.domain.open_tracking,
    clickTracking: o.domain.click_tracking,
    baseUrl: o.publicUrl,
    sign: o.sign,
    unsubscribeUrls: [...listUnsubscribeUrls(unsubscribe), ...(o.ownUnsubscribeUrl ? [o.ownUnsubscribeUrl] : [])],
  });
}
