// The SMTP reply rules table: actions, bounce subTypes, categories and named waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  classifyResponse,
  parseEnhancedCode,
  parseReply,
  parseRetryAfter,
  suppressesRecipient,
} from '../../src/mta/classify.js';
import { SRC } from '../helpers/root.js';

const cases: [string, string, string, string][] = [
  // reply, action, subType, category
  ['250 2.0.0 OK 1700000000 abc.123 - gsmtp', 'delivered', 'General', 'delivered'],
  [
    '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    'bounce',
    'NoEmail',
    'recipient',
  ],
  [
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550 5.1.1 double-checking the recipient's email address for typos",
    'bounce',
    'NoEmail',
    'recipient',
  ],
  ['550 5.5.0 Requested action not taken: mailbox unavailable', 'bounce', 'NoEmail', 'recipient'],
  ['550 5.4.1 Recipient address rejected: Access denied. AS(201806281)', 'bounce', 'NoEmail', 'recipient'],
  ['550 No such user here', 'bounce', 'NoEmail', 'recipient'],
  ['552 5.2.2 The email account that you tried to reach is over quota', 'bounce', 'MailboxFull', 'mailbox_full'],
  ['452 4.2.2 The email account that you tried to reach is over quota', 'defer', 'MailboxFull', 'mailbox_full'],
  ["552 5.3.4 Your message exceeded Google's message size limits", 'bounce', 'MessageTooLarge', 'message_size'],
  ['552 Message size exceeds fixed maximum message size', 'bounce', 'MessageTooLarge', 'message_size'],
  [
    '550 5.7.1 Our system has detected that this message is likely unsolicited mail',
    'bounce',
    'ContentRejected',
    'spam',
  ],
  ['554 5.7.1 Message rejected: infected with a virus (Eicar-Test-Signature)', 'bounce', 'AttachmentRejected', 'virus'],
  [
    '552 5.7.0 This message was blocked because its content presents a potential security issue',
    'bounce',
    'AttachmentRejected',
    'virus',
  ],
  [
    '550 5.7.26 This mail is unauthenticated, which poses a security risk to the sender and Gmail users',
    'bounce',
    'General',
    'auth',
  ],
  [
    '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
    'bounce',
    'General',
    'blocklist',
  ],
  [
    '553 5.7.2 [TSS09] All messages from 192.0.2.1 will be permanently deferred; Retrying will NOT succeed',
    'bounce',
    'General',
    'blocklist',
  ],
  ['554 5.7.1 <x@example.com>: Relay access denied', 'bounce', 'General', 'relay'],
  [
    '450 4.2.0 <bob@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/',
    'defer',
    'General',
    'greylist',
  ],
  ['550 5.7.9 Message not accepted for policy reasons', 'bounce', 'ContentRejected', 'policy'],
  ['554 5.7.3 Sorry', 'bounce', 'ContentRejected', 'policy'],
  ['550 4.7.1 Greylisted, please try again in 300 seconds', 'defer', 'General', 'greylist'],
  ['554 Please try again later', 'defer', 'General', 'temporary'],
  ['421 4.7.28 Our system has detected an unusual rate of unsolicited mail', 'defer', 'General', 'rate_limit'],
  [
    '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints',
    'defer',
    'General',
    'rate_limit',
  ],
  ['421 4.3.2 Service not available, closing transmission channel', 'defer', 'General', 'connection'],
  ['451 4.3.0 Temporary local problem', 'defer', 'General', 'temporary'],
  ['554 5.6.0 Message corrupt', 'bounce', 'General', 'protocol'],
  ['550 Rejected', 'bounce', 'General', 'other'],
];

for (const [reply, action, subType, category] of cases) {
  test(`classifies "${reply.slice(0, 60)}" as ${action} ${subType}/${category}`, () => {
    const c = classifyResponse(reply);
    assert.deepEqual({ action: c.action, subType: c.subType, category: c.category }, { action, subType, category });
  });
}

test('parses the named wait of a deferral into retryAfterSeconds', () => {
  assert.equal(classifyResponse('450 4.7.1 Greylisted, try again in 300 seconds').retryAfterSeconds, 300);
  assert.equal(classifyResponse('421 Too many connections, retry in 5 minutes').retryAfterSeconds, 300);
  assert.equal(classifyResponse('451 please wait 2 hours').retryAfterSeconds, 7200);
  assert.equal(classifyResponse('451 4.3.0 Temporary local problem').retryAfterSeconds, undefined);
  assert.equal(classifyResponse('550 5.1.1 user unknown, try again in 60 seconds').retryAfterSeconds, undefined);
  assert.equal(parseRetryAfter('Try again in 90s'), 90);
  assert.equal(parseRetryAfter('retry in 999999 hours'), 24 * 3600);
});

test('finds enhanced codes at the start or inside the text, and ignores IP addresses', () => {
  assert.equal(parseEnhancedCode('550 5.1.1 User unknown'), '5.1.1');
  assert.equal(parseEnhancedCode('550-5.7.26 Unauthenticated'), '5.7.26');
  assert.equal(parseEnhancedCode('4.2.2 over quota'), '4.2.2');
  assert.equal(parseEnhancedCode('550 Requested action not taken (5.1.10)'), '5.1.10');
  assert.equal(parseEnhancedCode('554 rejected from 5.1.1.4'), undefined);
  assert.equal(parseEnhancedCode('550 no code here'), undefined);
});

test('splits a multi-line reply into code, enhanced code and text', () => {
  assert.deepEqual(parseReply('550-5.7.1 first line\r\n550 5.7.1 second line'), {
    code: 550,
    enhanced: '5.7.1',
    text: 'first line second line',
  });
  assert.deepEqual(parseReply('250 OK'), { code: 250, enhanced: undefined, text: 'OK' });
});

test('defers a reply without a code (a socket failure)', () => {
  const c = classifyResponse('Connection closed unexpectedly');
  assert.equal(c.action, 'defer');
  assert.equal(c.code, 0);
});

// Issue 24: the four kinds of reply that went wrong, and how a contradiction is settled.
const suppressed = (reply: string) => {
  const c = classifyResponse(reply);
  return c.action === 'bounce' && suppressesRecipient(c.category);
};

test('a mailbox-full text under 5.1.1 is MailboxFull: the explicit text beats the contradicting code', () => {
  const c = classifyResponse('552 5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417 [417]');
  assert.deepEqual([c.action, c.subType, c.category], ['bounce', 'MailboxFull', 'mailbox_full']);
  assert.equal(suppressed('550 5.1.1 <jane@example.org>: Recipient address rejected: Mailbox is full'), false);
});

test('a 552 whose text is about size bounces as MessageTooLarge instead of deferring as a rate limit', () => {
  for (const reply of ['552 Message exceeded maximum size limit', '552 Mail size exceeded limit of 20971520 bytes']) {
    const c = classifyResponse(reply);
    assert.deepEqual([c.action, c.subType, c.category], ['bounce', 'MessageTooLarge', 'message_size'], reply);
  }
  assert.equal(classifyResponse('450 4.7.1 Rate limit exceeded, try again in 10 minutes').category, 'rate_limit');
});

test('an Italian not-found text is NoEmail and suppresses', () => {
  for (const reply of [
    '550 Utente inesistente',
    '550 Destinatario sconosciuto',
    '550 La casella di posta non esiste',
  ]) {
    assert.equal(classifyResponse(reply).subType, 'NoEmail', reply);
    assert.equal(suppressed(reply), true, reply);
  }
});

test('content scanners and banned content are ContentRejected or AttachmentRejected, never General', () => {
  assert.equal(
    classifyResponse('554 5.7.0 Reject, id=18327-05 - BANNED: invoice.pdf.exe').subType,
    'AttachmentRejected',
  );
  assert.equal(
    classifyResponse('550 5.7.0 Message content rejected, BANNED CONTENTS ALERT, id=1').subType,
    'AttachmentRejected',
  );
  assert.equal(classifyResponse('554 5.7.1 Message rejected: banned content').subType, 'ContentRejected');
  assert.equal(classifyResponse('554 5.7.1 Rejected by content scanner').subType, 'ContentRejected');
  assert.equal(
    classifyResponse('554 5.7.1 Message rejected: content blocked by Sophos Email').subType,
    'ContentRejected',
  );
});

test('an ambiguous reply never suppresses: unreadable, contradicting, a routing loop or an expired message', () => {
  assert.equal(suppressed('550 Rejected'), false, 'nothing recognisable');
  assert.equal(suppressed('530 5.7.0 Must issue a STARTTLS command first'), false);
  assert.equal(
    suppressed('552 5.2.2 <jane@example.org>: user unknown'),
    false,
    'a not-found text against a full-mailbox code',
  );
  assert.equal(classifyResponse('552 5.2.2 <jane@example.org>: user unknown').subType, 'MailboxFull');
  assert.equal(suppressed('550 5.4.6 Routing loop detected'), false);
  assert.equal(suppressed('554 5.4.7 Delivery time expired'), false);
  assert.equal(
    suppressed('550 5.1.1 <jane@example.org>: Recipient address rejected: User unknown'),
    true,
    'unambiguous',
  );
  assert.equal(
    suppressed('554 5.4.4 SMTPSEND.DNS.NonExistentDomain; nonexistent domain'),
    true,
    'the domain does not exist',
  );
});

test('a "try later" text does not turn a specific permanent code into a retry; a vague text does not overrule it', () => {
  assert.deepEqual(
    [
      classifyResponse('550 5.1.1 user unknown, try again in 60 seconds').action,
      classifyResponse('554 Please try again later').action,
    ],
    ['bounce', 'defer'],
  );
  assert.equal(classifyResponse('554 5.6.0 Mail message is malformed. Not accepted.').category, 'protocol');
});

test('no line of the rules table is longer than 120 characters (issue 25)', async () => {
  const { readFile } = await import('node:fs/promises');
  const source = await readFile(path.join(SRC, 'mta/classify.ts'), 'utf8');
  assert.deepEqual(
    source
      .split('\n')
      .map((l, i) => [i + 1, l.length])
      .filter(([, n]) => n > 120),
    [],
  );
});

// Issue 24, second round: words in other languages, codes read by class.subject.detail.
test('a not-found or full-mailbox text is read in other languages, with or without accents', () => {
  for (const reply of [
    '550 Empfaenger unbekannt',
    '550 5.1.1 Empfänger unbekannt',
    '550 Uzytkownik nie istnieje',
    '550 Utilisateur inconnu !',
    '550 Пользователь не найден',
    '550 用户不存在',
    '550 Onbekende gebruiker',
  ]) {
    assert.deepEqual([classifyResponse(reply).subType, suppressed(reply)], ['NoEmail', true], reply);
  }
  for (const reply of ['552 Postfach voll', '552 Почтовый ящик переполнен', '552 邮箱已满', '552 Caixa postal cheia']) {
    assert.equal(classifyResponse(reply).subType, 'MailboxFull', reply);
  }
  assert.equal(classifyResponse('552 Taille limite du message atteinte OFR_514 [514]').subType, 'MessageTooLarge');
});

test("Gmail's 5.7.28 flood block bounces as a blocklist while its 4.7.28 stays a rate-limit deferral", () => {
  const block = classifyResponse('550-5.7.28 Our system has detected an unusual rate of unsolicited mail. Blocked.');
  assert.deepEqual([block.action, block.category], ['bounce', 'blocklist']);
  assert.deepEqual([classifyResponse('421 4.7.28 unusual rate of mail').action], ['defer']);
});

test('x.2.3 is a size, a sender domain that does not exist never suppresses the recipient', () => {
  assert.equal(classifyResponse('552 5.2.3 Rejected').subType, 'MessageTooLarge');
  assert.equal(suppressed('550 Sender domain example.com does not exist'), false);
  assert.equal(
    classifyResponse('554 5.7.1 Barracuda content filter: message blocked by Intent Analysis').category,
    'spam',
  );
});

test('no line of the vocabularies is longer than 120 characters either', async () => {
  const { readFile } = await import('node:fs/promises');
  const source = await readFile(path.join(SRC, 'mta/classify-vocab.ts'), 'utf8');
  assert.deepEqual(
    source
      .split('\n')
      .map((l, i) => [i + 1, l.length])
      .filter(([, n]) => n > 120),
    [],
  );
});
