import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import type { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

describe('templates through the resend SDK, sent in capture mode', () => {
  let t: TestApp;
  let other: Resend;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    other = await otherTeamClient(t, 'Other team');
  });
  after(async () => {
    await t.close();
  });

  const mimeOf = async (id: string) =>
    simpleParser((await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [id])).rows[0].raw as Buffer);
  const order = {
    name: 'Order confirmation',
    from: 'Store <store@example.com>',
    subject: 'Your {{{PRODUCT}}} is on its way',
    replyTo: 'help@example.com',
    html: '<h1>{{{PRODUCT}}}</h1><p>Total: {{{PRICE}}} {{{CURRENCY}}}</p><p>Hi {{{FIRST_NAME|there}}}, note: {{{NOTE|none}}}</p>',
    text: 'Product: {{{PRODUCT}}}; total {{{PRICE}}} {{{CURRENCY}}}',
    variables: [
      { key: 'PRODUCT', type: 'string' as const },
      { key: 'PRICE', type: 'number' as const, fallbackValue: 25 },
      { key: 'CURRENCY', type: 'string' as const, fallbackValue: 'EUR' },
    ],
  };

  test("create answers 201 {object, id}; get (by id or alias) shows the draft with Resend's fields; list shows it", async () => {
    const created = await t.resend.templates.create({ ...order, alias: 'order-confirmation' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    assert.equal(created.data!.object, 'template');
    const raw = await t.api('POST', '/templates', { body: { name: 'Raw', html: '<p>x</p>' } });
    assert.equal(raw.status, 201);
    const got = (await t.resend.templates.get(created.data!.id)).data!;
    assert.deepEqual(Object.keys(got), [
      'object',
      'id',
      'current_version_id',
      'alias',
      'name',
      'created_at',
      'updated_at',
      'status',
      'published_at',
      'from',
      'subject',
      'reply_to',
      'html',
      'text',
      'variables',
      'has_unpublished_versions',
      'document',
    ]);
    assert.deepEqual(
      [got.object, got.name, got.alias, got.status, got.published_at, got.from, got.subject],
      ['template', order.name, 'order-confirmation', 'draft', null, order.from, order.subject],
    );
    assert.deepEqual(got.reply_to, ['help@example.com']);
    assert.equal(got.html, order.html);
    assert.equal(got.has_unpublished_versions, true);
    assert.match(got.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\+00$/);
    assert.deepEqual(
      got.variables!.map((v) => [v.key, v.type, v.fallback_value]),
      [
        ['PRODUCT', 'string', null],
        ['PRICE', 'number', 25],
        ['CURRENCY', 'string', 'EUR'],
      ],
    );
    const byAlias = (await t.resend.templates.get('order-confirmation')).data!;
    assert.equal(byAlias.id, got.id);
    const list = (await t.resend.templates.list()).data!;
    const item = list.data.find((x) => x.id === got.id)!;
    assert.deepEqual(Object.keys(item).sort(), [
      'alias',
      'created_at',
      'id',
      'name',
      'published_at',
      'status',
      'updated_at',
    ]);
    assert.equal(item.status, 'draft');
  });

  test('an unpublished template cannot send; once published, the send renders subject, html (escaped) and text with values and fallbacks', async () => {
    const draft = await t.resend.emails.send({
      to: 'a@dest.test',
      template: { id: 'order-confirmation', variables: { PRODUCT: 'Lamp' } },
    });
    assert.equal(draft.error?.name, 'validation_error');
    assert.equal(draft.error?.statusCode, 422);
    assert.match(draft.error!.message, /`template\.id`.*not been published/);

    const pub = await t.resend.templates.publish('order-confirmation');
    assert.equal(pub.error, null);
    assert.equal(pub.data!.object, 'template');
    const got = (await t.resend.templates.get('order-confirmation')).data!;
    assert.deepEqual([got.status, got.has_unpublished_versions], ['published', false]);
    assert.notEqual(got.published_at, null);

    const sent = await t.resend.emails.send({
      to: 'a@dest.test',
      template: { id: 'order-confirmation', variables: { PRODUCT: 'Fish & <Chips>', PRICE: 499 } },
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const mail = await mimeOf(sent.data!.id);
    assert.equal(mail.subject, 'Your Fish & <Chips> is on its way'); // headers are not HTML
    assert.equal(mail.from!.text, '"Store" <store@example.com>');
    assert.equal(mail.replyTo!.text, 'help@example.com');
    assert.equal(mail.html, '<h1>Fish &amp; &lt;Chips&gt;</h1><p>Total: 499 EUR</p><p>Hi there, note: none</p>');
    assert.equal(mail.text!.trim(), 'Product: Fish & <Chips>; total 499 EUR');
    const record = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(record.subject, 'Your Fish & <Chips> is on its way');
  });

  test("the request's from, subject and reply_to win over the template's; numbers may come as numeric strings", async () => {
    const sent = await t.resend.emails.send({
      from: 'Other <other@example.com>',
      subject: 'Plain subject',
      replyTo: 'me@example.com',
      to: 'a@dest.test',
      template: { id: 'order-confirmation', variables: { PRODUCT: 'Lamp', PRICE: '12.5' } },
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const mail = await mimeOf(sent.data!.id);
    assert.equal(mail.subject, 'Plain subject');
    assert.equal(mail.from!.value[0].address, 'other@example.com');
    assert.equal(mail.replyTo!.value[0].address, 'me@example.com');
    assert.match(mail.html as string, /Total: 12\.5 EUR/);
  });

  test('edits make a new draft: sends keep the published version until the next publish moves current_version_id; the history keeps every version', async () => {
    const before = (await t.resend.templates.get('order-confirmation')).data!;
    const upd = await t.resend.templates.update('order-confirmation', {
      html: '<p>v2 {{{PRODUCT}}}</p>',
      text: 'v2 {{{PRODUCT}}}',
    });
    assert.equal(upd.error, null, JSON.stringify(upd.error));
    assert.deepEqual(upd.data, { object: 'template', id: before.id });
    const edited = (await t.resend.templates.get(before.id)).data!;
    assert.deepEqual(
      [edited.status, edited.has_unpublished_versions, edited.current_version_id, edited.html],
      ['published', true, before.current_version_id, '<p>v2 {{{PRODUCT}}}</p>'],
    );
    assert.equal(edited.subject, order.subject, 'fields not given keep their value');

    const stillV1 = await t.resend.emails.send({
      to: 'a@dest.test',
      template: { id: before.id, variables: { PRODUCT: 'Lamp' } },
    });
    assert.match((await mimeOf(stillV1.data!.id)).html as string, /<h1>Lamp<\/h1>/);

    assert.equal((await t.resend.templates.publish(before.id)).error, null);
    const republished = (await t.resend.templates.get(before.id)).data!;
    assert.notEqual(republished.current_version_id, before.current_version_id);
    assert.equal(republished.has_unpublished_versions, false);
    const v2 = await t.resend.emails.send({
      to: 'a@dest.test',
      template: { id: before.id, variables: { PRODUCT: 'Lamp' } },
    });
    assert.equal((await mimeOf(v2.data!.id)).html, '<p>v2 Lamp</p>');

    // A name-only change is not a new version; an unchanged content is not either.
    await t.resend.templates.update(before.id, { name: 'Order confirmation (renamed)' });
    await t.resend.templates.update(before.id, { subject: order.subject });
    const renamed = (await t.resend.templates.get(before.id)).data!;
    assert.deepEqual([renamed.name, renamed.has_unpublished_versions], ['Order confirmation (renamed)', false]);

    const history = await t.api('GET', `/templates/${before.id}/versions`);
    assert.equal(history.status, 200);
    assert.deepEqual(
      history.body.data.map((v: any) => [v.number, v.published]),
      [
        [2, true],
        [1, false],
      ],
    );
    assert.equal(history.body.data[0].id, republished.current_version_id);
    assert.equal(history.body.data[1].id, before.current_version_id);
    assert.equal(history.body.data[1].html, order.html);
    assert.notEqual(history.body.data[1].published_at, null, 'the first version was published once');
    const one = await t.api('GET', `/templates/order-confirmation/versions/${before.current_version_id}`);
    assert.deepEqual([one.status, one.body.object, one.body.number], [200, 'template_version', 1]);
  });

  test("each mistake on a send is a 422 in Resend's shape naming the field", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { to: 'a@dest.test', template: { id: 'order-confirmation', variables: {} } },
        /Invalid `template\.variables` field: missing "PRODUCT"/,
      ],
      [
        { to: 'a@dest.test', template: { id: 'no-such-template' } },
        /Invalid `template\.id` field: no template has the id or alias "no-such-template"/,
      ],
      [{ to: 'a@dest.test', template: { id: '6f1b1a8e-0000-4000-8000-000000000000' } }, /Invalid `template\.id` field/],
      [
        { to: 'a@dest.test', html: '<p>x</p>', template: { id: 'order-confirmation', variables: { PRODUCT: 'x' } } },
        /Invalid `template` field: `html` cannot be sent with a template/,
      ],
      [
        { to: 'a@dest.test', text: 'x', template: { id: 'order-confirmation', variables: { PRODUCT: 'x' } } },
        /Invalid `template` field: `text` cannot be sent with a template/,
      ],
      [
        { to: 'a@dest.test', template: { id: 'order-confirmation', variables: { PRODUCT: 'x', PRICE: 'cheap' } } },
        /Invalid `template\.variables\.PRICE` field: must be a number/,
      ],
      [
        { to: 'a@dest.test', template: { id: 'order-confirmation', variables: { PRODUCT: { nested: true } } } },
        /Invalid `template\.variables\.PRODUCT` field: must be a string or a number/,
      ],
      [
        { to: 'a@dest.test', template: { id: 'order-confirmation', variables: { PRODUCT: 'x'.repeat(2001) } } },
        /`template\.variables\.PRODUCT`.*2000/,
      ],
      [{ to: 'a@dest.test', template: {} }, /Missing `template\.id` field/],
      [
        {
          to: 'a@dest.test',
          template: { id: 'order-confirmation', variables: { PRODUCT: 'line\r\nBcc: evil@x.test' } },
        },
        /`subject`/,
      ],
    ];
    for (const [body, msg] of cases) {
      const r = await t.api('POST', '/emails', { body });
      assert.equal(r.status, 422, JSON.stringify(body).slice(0, 120));
      assert.deepEqual(Object.keys(r.body), ['statusCode', 'message', 'name']);
      assert.equal(r.body.statusCode, 422);
      assert.ok(['validation_error', 'missing_required_field'].includes(r.body.name));
      assert.match(r.body.message, msg, JSON.stringify(body).slice(0, 120));
    }
    // A template without a default sender or subject needs them in the request.
    const bare = (await t.resend.templates.create({ name: 'Bare', html: '<p>{{{X|x}}}</p>' }).publish()).data!;
    const noFrom = await t.api('POST', '/emails', {
      body: { to: 'a@dest.test', subject: 's', template: { id: bare.id } },
    });
    assert.deepEqual([noFrom.status, noFrom.body.name], [422, 'missing_required_field']);
    assert.match(noFrom.body.message, /Missing `from` field/);
    const noSubject = await t.api('POST', '/emails', {
      body: { to: 'a@dest.test', from: 'a@example.com', template: { id: bare.id } },
    });
    assert.match(noSubject.body.message, /Missing `subject` field/);
    const ok = await t.resend.emails.send({
      to: 'a@dest.test',
      from: 'a@example.com',
      subject: 'Bare',
      template: { id: bare.id },
    });
    assert.equal(ok.error, null);
    assert.equal((await mimeOf(ok.data!.id)).html, '<p>x</p>');
  });

  test('variables are checked on create and update: reserved names, types, fallbacks, duplicates, at most 50', async () => {
    for (const key of [
      'FIRST_NAME',
      'LAST_NAME',
      'EMAIL',
      'UNSUBSCRIBE_URL',
      'RESEND_UNSUBSCRIBE_URL',
      'contact',
      'this',
    ]) {
      const r = await t.resend.templates.create({ name: 'x', html: '<p>x</p>', variables: [{ key, type: 'string' }] });
      assert.equal(r.error?.name, 'validation_error', key);
      assert.match(
        r.error!.message,
        new RegExp(`\`variables\\[0\\]\\.key\` field: "${key}" is a reserved variable name`),
        key,
      );
    }
    const bad: [unknown, RegExp][] = [
      [[{ key: 'A', type: 'boolean' }], /`variables\[0\]\.type`.*"string" or "number"/],
      [[{ key: 'A', type: 'number', fallback_value: 'ten' }], /`variables\[0\]\.fallback_value`.*must be a number/],
      [
        [
          { key: 'A', type: 'string' },
          { key: 'A', type: 'string' },
        ],
        /`variables\[1\]\.key`.*defined twice/,
      ],
      [[{ key: 'has space', type: 'string' }], /`variables\[0\]\.key`/],
      [Array.from({ length: 51 }, (_, i) => ({ key: `V${i}`, type: 'string' })), /at most 50 variables/],
    ];
    for (const [variables, msg] of bad) {
      const r = await t.api('POST', '/templates', { body: { name: 'x', html: '<p>x</p>', variables } });
      assert.equal(r.status, 422, JSON.stringify(variables).slice(0, 80));
      assert.match(r.body.message, msg);
    }
    const fifty = await t.api('POST', '/templates', {
      body: {
        name: 'fifty',
        html: '<p>x</p>',
        variables: Array.from({ length: 50 }, (_, i) => ({ key: `V${i}`, type: 'string' })),
      },
    });
    assert.equal(fifty.status, 201);
    const upd = await t.resend.templates.update(fifty.body.id, { variables: [{ key: 'EMAIL', type: 'string' }] });
    assert.match(upd.error!.message, /reserved/);
    const missing = await t.api('POST', '/templates', { body: { name: 'x' } });
    assert.deepEqual(
      [missing.status, missing.body.name, missing.body.message],
      [422, 'missing_required_field', 'Missing `html` field.'],
    );
    const noName = await t.api('POST', '/templates', { body: { html: '<p>x</p>' } });
    assert.equal(noName.body.message, 'Missing `name` field.');
    const badFrom = await t.api('POST', '/templates', {
      body: { name: 'x', html: '<p>x</p>', from: 'not an address' },
    });
    assert.match(badFrom.body.message, /`from`/);
    const dupAlias = await t.api('POST', '/templates', {
      body: { name: 'x', html: '<p>x</p>', alias: 'order-confirmation' },
    });
    assert.deepEqual([dupAlias.status, dupAlias.body.name], [422, 'validation_error']);
    assert.match(dupAlias.body.message, /`alias`.*already/);
  });

  test("batch sends render each email's own variables; a bad one fails a strict batch naming its index", async () => {
    const { data, error } = await t.resend.batch.send([
      { to: 'a@dest.test', template: { id: 'order-confirmation', variables: { PRODUCT: 'One' } } },
      { to: 'b@dest.test', subject: 'Second', template: { id: 'order-confirmation', variables: { PRODUCT: 'Two' } } },
    ]);
    assert.equal(error, null, JSON.stringify(error));
    const [one, two] = await Promise.all(data!.data.map((d) => mimeOf(d.id)));
    assert.equal(one.html, '<p>v2 One</p>');
    assert.equal(one.subject, 'Your One is on its way');
    assert.equal(two.html, '<p>v2 Two</p>');
    assert.equal(two.subject, 'Second');
    const bad = await t.resend.batch.send([
      { to: 'a@dest.test', template: { id: 'order-confirmation', variables: { PRODUCT: 'One' } } },
      { to: 'b@dest.test', template: { id: 'order-confirmation' } },
    ]);
    assert.equal(bad.error?.name, 'validation_error');
    assert.match(bad.error!.message, /^emails\[1\]: Invalid `template\.variables` field: missing "PRODUCT"/);
  });

  test("a template sent for a topic gets the recipient's unsubscribe link where it writes {{{RESEND_UNSUBSCRIBE_URL}}}", async () => {
    const topic = (await t.resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' })).data!;
    const tpl = (
      await t.resend.templates
        .create({
          name: 'News',
          from: 'news@example.com',
          subject: 'News',
          html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a> {{{X|x}}}',
        })
        .publish()
    ).data!;
    const sent = await t.resend.emails.send({ to: 'reader@dest.test', topicId: topic.id, template: { id: tpl.id } });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const html = (await mimeOf(sent.data!.id)).html as string;
    assert.match(html, /<a href="http[^"]+\/u\/[^"]+">Unsubscribe<\/a> x/);
  });

  test('duplicate makes a draft copy without the alias (and chains publish); delete removes it for good', async () => {
    const dup = await t.resend.templates.duplicate('order-confirmation');
    assert.equal(dup.error, null);
    const copy = (await t.resend.templates.get(dup.data!.id)).data!;
    const source = (await t.resend.templates.get('order-confirmation')).data!;
    assert.notEqual(copy.id, source.id);
    assert.deepEqual(
      [copy.name, copy.alias, copy.status, copy.html, copy.subject],
      [`${source.name} (copy)`, null, 'draft', source.html, source.subject],
    );
    assert.deepEqual(
      copy.variables!.map((v) => v.key),
      source.variables!.map((v) => v.key),
    );
    const chained = await t.resend.templates.duplicate(copy.id).publish();
    assert.equal(chained.error, null);
    assert.equal((await t.resend.templates.get(chained.data!.id)).data!.status, 'published');

    const removed = await t.resend.templates.remove(copy.id);
    assert.deepEqual(removed.data, { object: 'template', id: copy.id, deleted: true });
    assert.equal((await t.resend.templates.get(copy.id)).error?.name, 'not_found');
    assert.equal((await t.resend.templates.remove(copy.id)).error?.name, 'not_found');
    const sent = await t.api('POST', '/emails', { body: { to: 'a@dest.test', template: { id: copy.id } } });
    assert.deepEqual([sent.status, sent.body.name], [422, 'validation_error']);
    // An alias freed by a delete can be taken again.
    const aliased = (await t.resend.templates.create({ name: 'tmp', alias: 'short-lived', html: '<p>x</p>' })).data!;
    await t.resend.templates.remove('short-lived');
    assert.equal(
      (await t.resend.templates.create({ name: 'tmp2', alias: 'short-lived', html: '<p>x</p>' })).error,
      null,
    );
    assert.equal((await t.resend.templates.get(aliased.id)).error?.name, 'not_found');
  });

  test('the list paginates newest first with limit, after and before; bad pagination is a 422', async () => {
    const team = await otherTeamClient(t, 'Paging team');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await team.templates.create({ name: `T${i}`, html: '<p>x</p>' })).data!.id);
    const newest = [...ids].reverse();
    const p1 = (await team.templates.list({ limit: 2 })).data!;
    assert.deepEqual([p1.data.map((x) => x.id), p1.has_more], [newest.slice(0, 2), true]);
    const p2 = (await team.templates.list({ limit: 2, after: p1.data[1].id })).data!;
    assert.deepEqual([p2.data.map((x) => x.id), p2.has_more], [newest.slice(2, 4), true]);
    const p3 = (await team.templates.list({ limit: 2, after: p2.data[1].id })).data!;
    assert.deepEqual([p3.data.map((x) => x.id), p3.has_more], [newest.slice(4), false]);
    const back = (await team.templates.list({ limit: 2, before: p3.data[0].id })).data!;
    assert.deepEqual(
      back.data.map((x) => x.id),
      newest.slice(2, 4),
    );
    assert.equal((await team.templates.list()).data!.data.length, 5, 'default limit 20');
    const bad = await t.api('GET', '/templates?limit=101');
    assert.deepEqual([bad.status, bad.body.name], [422, 'validation_error']);
  });

  test("another team's template is a 404 on every route and unknown to its sends", async () => {
    const mine = (await t.resend.templates.get('order-confirmation')).data!;
    for (const ref of [mine.id, 'order-confirmation']) {
      assert.equal((await other.templates.get(ref)).error?.name, 'not_found');
      assert.equal((await other.templates.update(ref, { name: 'stolen' })).error?.name, 'not_found');
      assert.equal((await other.templates.publish(ref)).error?.name, 'not_found');
      assert.equal((await other.templates.duplicate(ref)).error?.name, 'not_found');
      assert.equal((await other.templates.remove(ref)).error?.name, 'not_found');
      const send = await other.emails.send({
        from: 'a@example.com',
        to: 'a@dest.test',
        subject: 's',
        template: { id: ref, variables: { PRODUCT: 'x' } },
      });
      assert.equal(send.error?.statusCode, 422);
      assert.match(send.error!.message, /no template has the id or alias/);
    }
    assert.equal((await other.templates.list()).data!.data.length, 0);
    assert.equal((await t.resend.templates.get(mine.id)).data!.name, mine.name, 'untouched');
    // The other team can use the same alias for its own template.
    assert.equal(
      (await other.templates.create({ name: 'theirs', alias: 'order-confirmation', html: '<p>x</p>' })).error,
      null,
    );
  });

  test('a preview renders the working copy with sample values and lists the variables left without one', async () => {
    const draft = (
      await t.resend.templates.create({
        name: 'Preview',
        subject: 'Hi {{{WHO}}}',
        html: '<p>{{{WHO}}} owes {{{AMOUNT}}}</p>',
        variables: [{ key: 'AMOUNT', type: 'number', fallbackValue: 0 }],
      })
    ).data!;
    const p = await t.api('POST', `/templates/${draft.id}/preview`, { body: { variables: { WHO: '<Ann>' } } });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual([p.body.subject, p.body.html, p.body.missing], ['Hi <Ann>', '<p>&lt;Ann&gt; owes 0</p>', []]);
    const viaGet = await t.api(
      'GET',
      `/templates/${draft.id}/preview?variables=${encodeURIComponent(JSON.stringify({ WHO: 'Bo', AMOUNT: '7' }))}`,
    );
    assert.deepEqual([viaGet.status, viaGet.body.html], [200, '<p>Bo owes 7</p>']);
    const badJson = await t.api('GET', `/templates/${draft.id}/preview?variables=%7Bnope`);
    assert.deepEqual([badJson.status, badJson.body.name], [422, 'validation_error']);
    const bare = await t.api('POST', `/templates/${draft.id}/preview`, { body: {} });
    assert.deepEqual([bare.body.html, bare.body.missing], ['<p>{{{WHO}}} owes 0</p>', ['WHO']]);
    assert.equal((await other.templates.get(draft.id)).error?.name, 'not_found');
    const theirs = await t.api('POST', `/templates/${draft.id}/preview`, { key: other.key!, body: {} });
    assert.equal(theirs.status, 404);
  });

  test('/openapi.json documents every template route', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    for (const [path, method] of [
      ['/templates', 'post'],
      ['/templates', 'get'],
      ['/templates/{id}', 'get'],
      ['/templates/{id}', 'patch'],
      ['/templates/{id}', 'delete'],
      ['/templates/{id}/publish', 'post'],
      ['/templates/{id}/duplicate', 'post'],
      ['/templates/{id}/versions', 'get'],
      ['/templates/{id}/preview', 'post'],
      ['/templates/{id}/preview', 'get'],
    ]) {
      assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
    }
  });
});
