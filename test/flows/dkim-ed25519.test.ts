// The Ed25519 DKIM extension through the real API: PATCH /domains/:id {"dkim_ed25519": true}
// publishes a second DKIM record (own selector); once it verifies, mail carries an RSA and an
// Ed25519 signature and the receiving side (mailauth, fake DNS) passes both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { receiverDkimSignatures, startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';

const ed25519Record = (records: WireRecord[]) => records.find((r) => r.name === 'mailroom-ed25519._domainkey');

describe('DKIM Ed25519 dual signature (Mailroom extension)', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld();
  });
  after(async () => {
    await w.close();
  });

  async function sendAndReceive(to: string) {
    const { data, error } = await w.t.resend.emails.send({
      from: 'hello@example.com',
      to,
      subject: 'Signed twice',
      html: '<p>Hi</p>',
    });
    assert.equal(error, null);
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    return w.mx.messages.find((m) => m.rcptTo.includes(to))!;
  }

  test('turning it on adds a pending record without stopping the domain; mail is signed with both once it verifies', async () => {
    const patched = await w.t.api('PATCH', `/domains/${w.domainId}`, { body: { dkim_ed25519: true } });
    assert.equal(patched.status, 200);
    let domain = (await w.t.api('GET', `/domains/${w.domainId}`)).body;
    const record = ed25519Record(domain.records)!;
    assert.ok(record, 'a second DKIM record is listed');
    assert.equal(record.record, 'DKIM');
    assert.equal(record.type, 'TXT');
    assert.match(record.value, /^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    assert.equal(record.status, 'not_started');
    assert.equal(domain.status, 'verified', 'the RSA record still verifies the domain');
    assert.equal(domain.dkim_ed25519, true);

    // Not published yet: RSA only.
    const before = await sendAndReceive('first@dest.test');
    assert.deepEqual(await receiverDkimSignatures(w.dns, before), ['rsa-sha256 mailroom pass']);

    publishRecords(w.dns, 'example.com', domain.records);
    assert.equal((await w.t.api('POST', `/domains/${w.domainId}/verify`)).status, 200);
    domain = (await w.t.api('GET', `/domains/${w.domainId}`)).body;
    assert.equal(ed25519Record(domain.records)!.status, 'verified');

    // The delivery job keeps a domain's keys for up to 5 s.
    await new Promise((r) => setTimeout(r, 5_100));
    const both = await sendAndReceive('second@dest.test');
    assert.deepEqual((await receiverDkimSignatures(w.dns, both)).sort(), [
      'ed25519-sha256 mailroom-ed25519 pass',
      'rsa-sha256 mailroom pass',
    ]);
  });

  test('it can be asked for at creation and turned off again, which removes the record and the key', async () => {
    const created = await w.t.api('POST', '/domains', { body: { name: 'dual.example.org', dkim_ed25519: true } });
    assert.equal(created.status, 201);
    const record = ed25519Record(created.body.records)!;
    assert.ok(record);
    assert.equal(record.status, 'not_started');
    const { rows } = await w.t.db.pool.query('SELECT dkim_ed25519_private_key FROM domains WHERE id = $1', [
      created.body.id,
    ]);
    assert.doesNotMatch(rows[0].dkim_ed25519_private_key, /PRIVATE KEY/, 'sealed at rest');

    assert.equal(
      (await w.t.api('PATCH', `/domains/${created.body.id}`, { body: { dkim_ed25519: false } })).status,
      200,
    );
    const after = (await w.t.api('GET', `/domains/${created.body.id}`)).body;
    assert.equal(ed25519Record(after.records), undefined);
    assert.equal(after.dkim_ed25519, false);
    const again = await w.t.db.pool.query(
      'SELECT dkim_ed25519_public_key, dkim_ed25519_private_key FROM domains WHERE id = $1',
      [created.body.id],
    );
    assert.deepEqual(again.rows[0], { dkim_ed25519_public_key: null, dkim_ed25519_private_key: null });

    const bad = await w.t.api('PATCH', `/domains/${created.body.id}`, { body: { dkim_ed25519: 'yes' } });
    assert.equal(bad.status, 422);
  });
});
