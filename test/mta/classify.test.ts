// The SMTP reply rules table: actions, bounce subTypes, categories and named waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResponse, parseEnhancedCode, parseReply, parseRetryAfter } from '../../src/mta/classify.js';

const cases: [string, string, string, string][] = [
  // reply, action, subType, category
  ['250 2.0.0 OK 1700000000 abc.123 - gsmtp', 'delivered', 'General', 'delivered'],
  ['550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table', 'bounce', 'NoEmail', 'recipient'],
  ["550-5.1.1 The email account that you tried to reach does not exist. Please try\n550 5.1.1 double-checking the recipient's email address for typos", 'bounce', 'NoEmail', 'recipient'],
  ['550 5.5.0 Requested action not taken: mailbox unavailable', 'bounce', 'NoEmail', 'recipient'],
  ['550 5.4.1 Recipient address rejected: Access denied. AS(201806281)', 'bounce', 'NoEmail', 'recipient'],
  ['550 No such user here', 'bounce', 'NoEmail', 'recipient'],
  ['552 5.2.2 The email account that you tried to reach is over quota', 'bounce', 'MailboxFull', 'mailbox_full'],
  ['452 4.2.2 The email account that you tried to reach is over quota', 'defer', 'MailboxFull', 'mailbox_full'],
  ['552 5.3.4 Your message exceeded Google\'s message size limits', 'bounce', 'MessageTooLarge', 'message_size'],
  ['552 Message size exceeds fixed maximum message size', 'bounce', 'MessageTooLarge', 'message_size'],
  ['550 5.7.1 Our system has detected that this message is likely unsolicited mail', 'bounce', 'ContentRejected', 'spam'],
  ['554 5.7.1 Message rejected: infected with a virus (Eicar-Test-Signature)', 'bounce', 'AttachmentRejected', 'virus'],
  ['552 5.7.0 This message was blocked because its content presents a potential security issue', 'bounce', 'AttachmentRejected', 'virus'],
  ['550 5.7.26 This mail is unauthenticated, which poses a security risk to the sender and Gmail users', 'bounce', 'General', 'auth'],
  ['554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', 'bounce', 'General', 'blocklist'],
  ['553 5.7.2 [TSS09] All messages from 192.0.2.1 will be permanently deferred; Retrying will NOT succeed', 'bounce', 'General', 'blocklist'],
  ['554 5.7.1 <x@example.com>: Relay access denied', 'bounce', 'General', 'relay'],
  ['450 4.2.0 <bob@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/', 'defer', 'General', 'greylist'],
  ['550 5.7.9 Message not accepted for policy reasons', 'bounce', 'ContentRejected', 'policy'],
  ['554 5.7.3 Sorry', 'bounce', 'ContentRejected', 'policy'],
  ['550 4.7.1 Greylisted, please try again in 300 seconds', 'defer', 'General', 'greylist'],
  ['554 Please try again later', 'defer', 'General', 'temporary'],
  ['421 4.7.28 Our system has detected an unusual rate of unsolicited mail', 'defer', 'General', 'rate_limit'],
  ['421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints', 'defer', 'General', 'rate_limit'],
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
  assert.deepEqual(parseReply('550-5.7.1 first line\r\n550 5.7.1 second line'), { code: 550, enhanced: '5.7.1', text: 'first line second line' });
  assert.deepEqual(parseReply('250 OK'), { code: 250, enhanced: undefined, text: 'OK' });
});

test('defers a reply without a code (a socket failure)', () => {
  const c = classifyResponse('Connection closed unexpectedly');
  assert.equal(c.action, 'defer');
  assert.equal(c.code, 0);
});
