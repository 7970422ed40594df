// A domain claim completed through the SDK (TXT record on the fake DNS server): the claimant's
// audit log has the claim and its completion by its key; the holder's has the domain's removal by
// the system, naming nobody of the claiming team.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import { teamCreate } from '../../src/store/teams.js';

let w: MailWorld;
before(async () => {
  w = await startMailWorld({ allowPrivateNetworks: true });
});
after(async () => {
  await w?.close();
});

test('a completed claim: domain.claimed for the claimant, domain.deleted by the system for the holder', async () => {
  const team = await teamCreate(w.t.db.pool, 'Claimant');
  const key = await w.t.app.apiKeys.create(team.id, { name: 'claimant key' });
  const claimant = new Resend(key.token, { baseUrl: w.t.url });
  const c = (await claimant.domains.claims.create({ name: 'example.com' })).data!;
  w.dns.set('example.com', 'TXT', [c.record.value]);
  const done = await claimant.domains.claims.verify(c.domain_id!);
  assert.equal(done.data?.status, 'completed', JSON.stringify(done));

  const theirs = (await w.t.api('GET', '/audit-log?action=domain.claimed', { key: key.token })).body.data;
  assert.deepEqual(
    theirs.map((e: { summary: { after: { status: string } } }) => e.summary.after.status),
    ['completed', 'pending'],
  );
  assert.ok(theirs.every((e: { actor: { id: string } }) => e.actor.id === key.id));

  const holder = (await w.t.api('GET', `/audit-log?action=domain.deleted&target_id=${w.domainId}`)).body.data;
  assert.equal(holder.length, 1);
  assert.deepEqual(holder[0].actor, { kind: 'system', id: null, display: 'mailroom' });
  assert.equal(holder[0].ip, null);
  assert.equal(holder[0].summary.before.name, 'example.com');
  assert.ok(!JSON.stringify(holder[0]).includes(key.id) && !JSON.stringify(holder[0]).includes(team.id));
});
