// Every insight rule on real messages: a request body validated as POST /emails validates it (or an
// SMTP message parsed as submission parses it), turned into facts as the send path does, then run
// through the rules. Each rule fires on its bad example and not on its good one; a rule added to
// the table without a case here fails the last test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateSendRequest } from '../../src/emails/validate.js';
import { parseSubmission } from '../../src/emails/mime-submission.js';
import { parseAddress } from '../../src/mime/addresses.js';
import { messageFacts, type FactsContext } from '../../src/insights/insight-facts.js';
import { inspectDelivery, inspectMessage } from '../../src/insights/inspect.js';
import { RULES } from '../../src/insights/rules.js';
import type { DeliveryFacts, Finding } from '../../src/insights/types.js';
import { classifyResponse } from '../../src/mta/classify.js';

const now = new Date('2026-11-25T10:00:00Z');
const DOMAIN: Parameters<typeof messageFacts>[1] = {
  name: 'example.com',
  tracking_subdomain: 'links',
  record_status: { dkim: { status: 'verified', checked_at: now.toISOString() } },
};

/** A clean transactional email: every rule stays quiet on it. */
const GOOD_HTML = `<!doctype html><html><head><style>p{color:#333}</style></head><body>
<p>Hi Ada,</p>
<p>Your order 1042 has shipped and should arrive on Thursday. You can follow the parcel on the
<a href="https://example.com/orders/1042">order page</a> or reply to this email with any question.</p>
<p><img src="https://cdn.example.com/logo.png" alt="Example" width="120"></p>
<p>Thanks for shopping with us, the Example team</p></body></html>`;
const GOOD = {
  from: 'Example Shop <orders@example.com>',
  to: 'ada@dest.test',
  subject: 'Your order 1042 has shipped',
  html: GOOD_HTML,
};

function run(
  body: Record<string, unknown>,
  ctx: Partial<FactsContext> = {},
  domain: typeof DOMAIN = DOMAIN,
): Finding[] {
  const req = validateSendRequest(body, { allowAttachments: true, now });
  return inspectMessage(
    messageFacts(req, domain, {
      trackingHost: 'mailroom.example.net',
      listMail: false,
      listUnsubscribeAdded: false,
      sentHtml: req.html,
      prebuilt: false,
      ...ctx,
    }),
  );
}
const ids = (f: Finding[]) => f.map((x) => x.id);

async function smtp(raw: string): Promise<Finding[]> {
  const m = await parseSubmission(Buffer.from(raw.replace(/\n/g, '\r\n')), {
    mailFrom: parseAddress('orders@example.com', 'from'),
    rcptTo: [parseAddress('ada@dest.test')],
  });
  return inspectMessage(
    messageFacts(m.request, DOMAIN, {
      trackingHost: 'mailroom.example.net',
      listMail: false,
      listUnsubscribeAdded: false,
      sentHtml: m.request.html,
      prebuilt: true,
    }),
  );
}

test('a clean transactional email has no findings', () => {
  assert.deepEqual(run(GOOD), []);
});

const covered = new Set<string>();
/** Asserts the rule fires on `bad` (with a detail matching `detail`) and not on `good`. */
function rule(
  id: string,
  bad: () => Finding[] | Promise<Finding[]>,
  good: () => Finding[] | Promise<Finding[]>,
  detail: RegExp,
) {
  covered.add(id);
  test(`${id}: fires on the bad example, not on the good one`, async () => {
    const b = await bad();
    const hit = b.find((f) => f.id === id);
    assert.ok(hit, `${id} should fire; got ${ids(b).join(', ') || 'nothing'}`);
    assert.match(hit.detail, detail);
    const def = RULES.find((r) => r.id === id)!;
    assert.equal(hit.severity, def.severity);
    assert.ok(hit.title && hit.fix, 'a title and a fix');
    const g = await good();
    assert.ok(!ids(g).includes(id), `${id} should not fire on the good example; got ${ids(g).join(', ')}`);
  });
}

rule(
  'text-part-missing',
  () => run({ ...GOOD, text: '' }),
  () => run({ ...GOOD }), // no `text`: Mailroom writes it from the HTML
  /no plain-text alternative/,
);
test('text-part-missing: an HTML-only message submitted over SMTP has no text part; one with both has', async () => {
  assert.ok(
    ids(
      await smtp(
        `From: orders@example.com\nTo: ada@dest.test\nSubject: Shipped\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n${GOOD_HTML}`,
      ),
    ).includes('text-part-missing'),
  );
  const both = await smtp(
    `From: orders@example.com\nTo: ada@dest.test\nSubject: Shipped\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\nHi Ada, your order 1042 has shipped and should arrive on Thursday. Follow the parcel on the order page or reply to this email with any question. Thanks for shopping with us, the Example team\n--b\nContent-Type: text/html\n\n${GOOD_HTML}\n--b--\n`,
  );
  assert.deepEqual(ids(both), []);
});

rule(
  'text-part-poor',
  () => run({ ...GOOD, text: 'To view this email in your browser go to https://example.com/v/1042' }),
  () =>
    run({
      ...GOOD,
      text: 'Hi Ada, your order 1042 has shipped and should arrive on Thursday. You can follow the parcel on the order page (https://example.com/orders/1042) or reply to this email with any question. Thanks for shopping with us, the Example team',
    }),
  /% of the words/,
);

rule(
  'html-clipped',
  () =>
    run({
      ...GOOD,
      html: GOOD_HTML.replace('</body>', `<p>${'Lorem ipsum dolor sit amet. '.repeat(4000)}</p></body>`),
    }),
  () =>
    run({
      ...GOOD,
      html: GOOD_HTML.replace('</body>', `<p>${'Lorem ipsum dolor sit amet. '.repeat(3000)}</p></body>`),
    }),
  /KB; Gmail clips after 102 KB/,
);
test('html-clipped counts the HTML as sent (click tracking lengthens every link)', () => {
  const html = GOOD_HTML.replace('</body>', `<p>${'Lorem ipsum dolor sit amet. '.repeat(3000)}</p></body>`);
  assert.ok(ids(run({ ...GOOD, html }, { sentHtml: html + ' '.repeat(30_000) })).includes('html-clipped'));
});

rule(
  'link-domain-mismatch',
  () =>
    run({
      ...GOOD,
      html: GOOD_HTML.replace('https://example.com/orders/1042', 'https://shop-tracking.example.org/o/1042'),
    }),
  () =>
    run({
      ...GOOD,
      html:
        GOOD_HTML.replace('https://example.com/orders/1042', 'https://www.example.com/orders/1042?x=1#top') +
        '<a href="mailto:help@example.com">help</a><a href="#top">top</a><a href="https://mailroom.example.net/u/abc">prefs</a>',
    }),
  /example\.org/,
);

rule(
  'link-shortener',
  () => run({ ...GOOD, html: GOOD_HTML.replace('https://example.com/orders/1042', 'https://bit.ly/3xYz12') }),
  () => run({ ...GOOD, html: GOOD_HTML.replace('https://example.com/orders/1042', 'https://go.example.com/1042') }),
  /bit\.ly/,
);

rule(
  'link-raw-ip',
  () =>
    run({ ...GOOD, html: GOOD_HTML.replace('https://example.com/orders/1042', 'http://203.0.113.7:8080/orders/1042') }),
  () => run(GOOD),
  /203\.0\.113\.7/,
);
test('link-raw-ip sees the host behind a user-info trick (http://example.com@198.51.100.4/)', () => {
  const f = run({
    ...GOOD,
    html: GOOD_HTML.replace('https://example.com/orders/1042', 'http://example.com@198.51.100.4/login'),
  });
  assert.match(f.find((x) => x.id === 'link-raw-ip')!.detail, /198\.51\.100\.4/);
});

rule(
  'image-external-host',
  () => run({ ...GOOD, html: GOOD_HTML.replace('https://cdn.example.com/logo.png', 'https://i.imgur.com/abc.png') }),
  () =>
    run({
      ...GOOD,
      html:
        GOOD_HTML.replace('https://cdn.example.com/logo.png', 'https://links.example.com/logo.png') +
        '<img src="cid:logo" alt="">',
    }),
  /i\.imgur\.com/,
);

rule(
  'image-missing-alt',
  () => run({ ...GOOD, html: GOOD_HTML.replace(' alt="Example"', '') }),
  () => run({ ...GOOD, html: GOOD_HTML.replace(' alt="Example"', ' alt=""') }), // decorative: an empty alt is right
  /1 image without an alt/,
);

rule(
  'image-only',
  () =>
    run({
      ...GOOD,
      text: 'Sale',
      html: '<html><body><a href="https://example.com/sale"><img src="https://example.com/sale.jpg" alt="Sale"></a></body></html>',
    }),
  () => run(GOOD),
  /1 image and 0 words/,
);

rule(
  'no-reply-address',
  () => run({ ...GOOD, from: 'Example <no-reply@example.com>' }),
  () => run({ ...GOOD, from: 'Example <no-reply@example.com>', reply_to: 'support@example.com' }),
  /no-reply@example\.com does not take replies/,
);
test('no-reply-address fires on a do-not-reply Reply-To too', () => {
  assert.ok(ids(run({ ...GOOD, reply_to: 'DoNotReply@example.com' })).includes('no-reply-address'));
});

rule(
  'list-unsubscribe-missing',
  () =>
    run({
      ...GOOD,
      subject: 'November news',
      html: `${GOOD_HTML}<p><a href="https://example.com/prefs">Unsubscribe</a></p>`,
    }),
  () =>
    run({
      ...GOOD,
      subject: 'November news',
      html: `${GOOD_HTML}<p><a href="https://example.com/prefs">Unsubscribe</a></p>`,
      headers: {
        'List-Unsubscribe': '<https://example.com/u/1>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    }),
  /offers an unsubscribe link/,
);
test("list-unsubscribe-missing: list mail without the header fires; Mailroom's own one-click headers count", () => {
  const list = { ...GOOD, subject: 'November news' };
  assert.match(
    run(list, { listMail: true, listUnsubscribeAdded: false }).find((f) => f.id === 'list-unsubscribe-missing')!.detail,
    /contact list/,
  );
  assert.ok(!ids(run(list, { listMail: true, listUnsubscribeAdded: true })).includes('list-unsubscribe-missing'));
});

rule(
  'subject-all-caps',
  () => run({ ...GOOD, subject: 'YOUR ORDER 1042 HAS SHIPPED' }),
  () => run({ ...GOOD, subject: 'Your order 1042 has shipped (UPS)' }),
  /no lower-case letters/,
);

rule(
  'subject-spam-trigger',
  () => run({ ...GOOD, subject: 'Act now: 100% free shipping!!!' }),
  () => run({ ...GOOD, subject: 'Free shipping on your next order' }),
  /act now/i,
);

rule(
  'from-name-domain',
  () => run({ ...GOOD, from: '"PayPal.com Billing" <billing@example.com>' }),
  () => run({ ...GOOD, from: '"Example.com Billing" <billing@example.com>' }),
  /paypal\.com/,
);
test('from-name-domain fires on an address of another domain in the display name', () => {
  assert.match(
    run({ ...GOOD, from: '"security@apple.com" <alerts@example.com>' }).find((f) => f.id === 'from-name-domain')!
      .detail,
    /security@apple\.com/,
  );
  assert.ok(
    !ids(run({ ...GOOD, from: '"Dr. J. Smith" <j@example.com>' })).includes('from-name-domain'),
    'initials are not a domain',
  );
  assert.ok(
    !ids(run({ ...GOOD, from: '"Node.js Weekly" <news@example.com>' })).includes('from-name-domain'),
    'a product name is not a domain',
  );
});

rule(
  'dkim-not-aligned',
  () =>
    run(
      GOOD,
      {},
      { ...DOMAIN, record_status: { dkim: { status: 'temporary_failure', checked_at: now.toISOString() } } },
    ),
  () => run(GOOD),
  /not found in DNS now/,
);

/** The first delivery result as the delivery job sees it: the reply classified by mta/classify.ts. */
const delivery = (status: DeliveryFacts['status'], response: string): DeliveryFacts => {
  const c = classifyResponse(response);
  return {
    status,
    response,
    code: c.code,
    enhanced: c.enhanced,
    category: c.category,
    recipient: 'ada@dest.test',
    sendingDomain: 'example.com',
  };
};

covered.add('receiver-rejected');
test('receiver-rejected explains a Gmail DMARC rejection and an unknown user', () => {
  const dmarc = inspectDelivery(
    delivery(
      'bounced',
      "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy. Please contact the administrator of example.com domain.",
    ),
  )!;
  assert.equal(dmarc.id, 'receiver-rejected');
  assert.equal(dmarc.severity, 'error');
  assert.equal(dmarc.title, 'The receiver requires DMARC alignment');
  assert.match(dmarc.detail, /^ada@dest\.test: "550-5\.7\.26 Unauthenticated/);
  assert.match(dmarc.fix, /Publish a DMARC record \(_dmarc\.example\.com\) and sign with the From domain/);
  const unknown = inspectDelivery(
    delivery('bounced', '550 5.1.1 The email account that you tried to reach does not exist.'),
  )!;
  assert.equal(unknown.title, 'The address does not exist');
  assert.equal(
    inspectDelivery(delivery('deferred', '550 5.1.1 The email account that you tried to reach does not exist.'))?.id,
    'receiver-deferred',
    'a bounce rule does not fire on a deferral',
  );
});

covered.add('receiver-deferred');
test('receiver-deferred explains a rate limit and greylisting; nothing for a delivered reply', () => {
  const rate = inspectDelivery(
    delivery(
      'deferred',
      '421-4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
    ),
  )!;
  assert.equal(rate.id, 'receiver-deferred');
  assert.equal(rate.severity, 'warning');
  assert.equal(rate.title, 'The receiver is rate-limiting this sender');
  assert.match(
    inspectDelivery(delivery('deferred', '451 4.7.1 Greylisted, please try again in 300 seconds'))!.title,
    /greylisting/,
  );
  assert.match(
    inspectDelivery(delivery('deferred', '530 5.7.10 Must issue a STARTTLS command first'))!.title,
    /requires TLS/,
  );
  assert.match(
    inspectDelivery(
      delivery('bounced', '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org'),
    )!.title,
    /blocklist/,
  );
});

test('every rule of the table has a case in this file', () => {
  assert.deepEqual(
    RULES.map((r) => r.id).filter((id) => !covered.has(id)),
    [],
  );
  assert.equal(new Set(RULES.map((r) => r.id)).size, RULES.length, 'ids are unique');
  for (const r of RULES)
    assert.ok(r.why.length > 20 && r.title && r.fix, `${r.id} has a justification, a title and a fix`);
});
