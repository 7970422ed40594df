// A receiver's reply (or our own reason for a failure before any reply) in words a developer can
// act on. Data, first match wins: specific enhanced codes first, then the category that
// mta/classify.ts gave the reply (one classification of replies, not a second one here).
// Sources: RFC 3463/5248, and what Gmail, Microsoft, Yahoo document for their codes.
import type { DeliveryFacts } from './types.js';

export interface Explanation {
  title: string;
  /** what the receiver means, after the quoted reply */
  meaning: string;
  fix: string;
}

interface Entry extends Explanation {
  enhanced?: RegExp;
  category?: string;
  text?: RegExp;
}

const d = (f: DeliveryFacts) => f.sendingDomain;

// `fix` may name the sending domain: {domain} is replaced.
const TABLE: Entry[] = [
  {
    enhanced: /^5\.7\.26$/,
    text: /dmarc/i,
    title: 'The receiver requires DMARC alignment',
    meaning: "the message failed the receiver's DMARC check: neither SPF nor DKIM passed for the From domain",
    fix: "Publish a DMARC record (_dmarc.{domain}) and sign with the From domain: check that the domain's DKIM record is published and verified in Mailroom.",
  },
  {
    enhanced: /^5\.7\.25$/,
    text: /\bptr\b|reverse dns|\brdns\b|reverse lookup|fcrdns|forward-confirmed/i,
    title: 'The receiver requires reverse DNS for the sending IP',
    meaning: 'the sending IP address has no PTR record, or its name does not resolve back to it',
    fix: 'Give each outbound address a PTR record naming MAILROOM_HELO_NAME, with an A/AAAA record of that name pointing back to the address.',
  },
  {
    enhanced: /^5\.7\.2[37]$/,
    text: /\bspf\b|sender policy framework/i,
    title: 'The receiver found no SPF pass',
    meaning: 'the sending IP address is not allowed by the SPF record of the return-path domain',
    fix: "Publish the SPF record Mailroom shows for {domain} (on its return-path subdomain) and include this server's outbound addresses.",
  },
  {
    text: /\bdkim\b/i,
    category: 'auth',
    title: 'The receiver could not authenticate the sender',
    meaning: 'the message failed sender authentication (SPF, DKIM or DMARC)',
    fix: "Verify {domain}'s DNS records in Mailroom (DKIM, SPF, DMARC) and make sure the published values match.",
  },
  {
    category: 'blocklist',
    title: 'The sending IP or domain is on a blocklist',
    meaning: "the receiver refused the connection or the message because of the sender's reputation",
    fix: 'Look up the outbound IP and {domain} on the blocklist named in the reply, fix the cause (compromised keys, purchased lists, high bounce rates) and request delisting.',
  },
  {
    category: 'rate_limit',
    title: 'The receiver is rate-limiting this sender',
    meaning: 'more mail arrived than the receiver accepts from this sender at once',
    fix: 'Nothing is lost: Mailroom retries on its ladder. Send at a steadier pace, warm up new IPs and domains gradually, and keep complaint rates low.',
  },
  {
    category: 'greylist',
    title: 'The receiver is greylisting',
    meaning: 'the receiver defers the first attempt from an unknown sender and accepts a later one',
    fix: 'Nothing to do: Mailroom retries and the retry is normally accepted.',
  },
  {
    enhanced: /^[45]\.7\.(?:10|11)$/,
    text: /starttls|must issue a starttls|encryption required|tls required/i,
    title: 'The receiver requires TLS',
    meaning: 'the receiver accepts mail only over an encrypted connection',
    fix: "Make sure outbound STARTTLS works (the domain's `tls` setting, the receiver's certificate); Mailroom offers STARTTLS whenever the receiver does.",
  },
  {
    category: 'spam',
    title: 'The receiver judged the content to be spam',
    meaning: 'the message was refused for what it contains',
    fix: "Look at the other insights of this email (links, images, subject) and the receiver's reply; send only to people who asked for the mail.",
  },
  {
    category: 'virus',
    title: 'The receiver refused an attachment',
    meaning: 'an attachment was considered dangerous or of a forbidden type',
    fix: 'Send a link to the file instead of executables, archives or macro documents.',
  },
  {
    category: 'recipient',
    title: 'The address does not exist',
    meaning: 'the receiver has no mailbox for this address',
    fix: 'The address is now on the suppression list. Remove it from your list and confirm addresses at sign-up (double opt-in).',
  },
  {
    category: 'mailbox_full',
    title: "The recipient's mailbox is full",
    meaning: 'the mailbox is over its quota',
    fix: 'A full mailbox is often abandoned: if it stays full, stop sending to it.',
  },
  {
    category: 'message_size',
    title: 'The message is too large for the receiver',
    meaning: 'the receiver refused the message because of its size',
    fix: 'Keep messages under 10 MB: link to large files instead of attaching them.',
  },
  {
    category: 'sender',
    title: 'The receiver refused the sender address',
    meaning: 'the envelope sender (the return path on {domain}) could not be verified',
    fix: 'Publish the return-path MX and SPF records Mailroom shows for {domain}, so the bounce address resolves.',
  },
  {
    category: 'relay',
    title: 'The receiver does not accept mail for this domain',
    meaning: "the server named by the recipient domain's MX refused to relay",
    fix: "Check the recipient address for typos; the recipient domain's MX records may be wrong.",
  },
  {
    category: 'dns',
    title: 'The recipient domain does not receive mail',
    meaning: 'the recipient domain has no mail server (no MX or A record, or a null MX)',
    fix: 'Check the address for typos (gmial.com, hotmial.com); the address is suppressed.',
  },
  {
    category: 'network',
    title: "The receiver's server could not be reached",
    meaning: 'no connection could be made, or it was lost before a reply',
    fix: 'Mailroom retries for 72 hours. If every receiver fails, check that this host can reach port 25 outbound (or use relay mode).',
  },
  {
    category: 'connection',
    title: "The receiver's server is busy or unavailable",
    meaning: 'the receiver asked to try later',
    fix: 'Nothing to do: Mailroom retries on its ladder.',
  },
  {
    category: 'policy',
    title: 'The receiver refused the message for policy reasons',
    meaning: "the receiver's local policy refused it",
    fix: "Read the reply for the receiver's reason and its help link; authenticate {domain} fully (DKIM, SPF, DMARC).",
  },
  {
    category: 'protocol',
    title: 'The receiver refused a command',
    meaning: 'an SMTP protocol error',
    fix: 'This is unexpected: report it with the reply text.',
  },
];

const FALLBACK: Explanation = {
  title: 'The receiver did not accept the message',
  meaning: 'the receiver gave no reason Mailroom recognizes',
  fix: 'Read the reply and any help link in it; deferred mail is retried for 72 hours.',
};

/** The explanation of the first entry that matches the reply, or a general one. */
export function explainReply(f: DeliveryFacts): Explanation {
  const hit =
    TABLE.find(
      (e) =>
        (e.enhanced !== undefined && f.enhanced !== undefined && e.enhanced.test(f.enhanced)) ||
        (e.text !== undefined && e.text.test(f.response)),
    ) ??
    TABLE.find((e) => e.category !== undefined && e.category === f.category) ??
    FALLBACK;
  return {
    title: hit.title,
    meaning: hit.meaning.replaceAll('{domain}', d(f)),
    fix: hit.fix.replaceAll('{domain}', d(f)),
  };
}
