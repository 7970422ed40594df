// The OAuth consent in Chromium: the operator registers a client on the Integrations page; a
// browser that is not signed in follows GET /oauth/authorize, signs in and lands on the consent
// (the request survives the sign-in), which names the application and the access; Allow returns to
// the client's redirect URI with the code and the state, which buy tokens; the grant is listed on
// the Integrations page and revoked there, after which the access token is refused.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  OWNER,
  ownerPage,
  screenshots,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

const REDIRECT = 'http://127.0.0.1:9/oauth-callback';

describe('OAuth consent in a browser', { timeout: 150_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let owner: Page;
  let clientId = '';
  let secret = '';
  let accessToken = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-oauth');

  before(async () => {
    if (browserSkip) return;
    t = await startCaptureApp();
    browser = await launchBrowser();
    owner = await ownerPage(browser, t.url, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the operator registers a client on the Integrations page; the secret is shown once', async () => {
    await owner.goto(`${t.url}/dashboard/integrations`);
    await owner.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    await owner.getByLabel('Name').fill('Acme CRM');
    await owner.getByLabel('Redirect URIs').fill(REDIRECT);
    await owner.getByRole('button', { name: 'Register' }).click();
    const secretCode = owner.locator('code', { hasText: /^mrcs_/ });
    await secretCode.waitFor();
    secret = (await secretCode.textContent())!;
    const list = (await t.db.pool.query('SELECT id FROM oauth_clients')).rows;
    assert.equal(list.length, 1);
    clientId = list[0].id;
    await shots.shot('clients', owner);
  });

  browserTest('signed out, the authorization survives the sign-in; Allow returns code and state', async () => {
    const page = await desktopPage(browser, errors);
    let landed: URL | undefined;
    await page.route(`${REDIRECT}**`, async (route) => {
      landed = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
    });
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'sending_access',
      state: 'browser-state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    await page.goto(`${t.url}/oauth/authorize?${q}`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Allow Acme CRM to use Mailroom?' }).waitFor();
    assert.match((await page.getByTestId('scope').textContent())!, /Sending access/);
    await shots.shot('consent', page);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('back at the client').waitFor();
    assert.ok(landed);
    assert.equal(landed.searchParams.get('state'), 'browser-state');
    const code = landed.searchParams.get('code')!;
    const res = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    const body = (await res.json()) as { access_token: string; scope: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.scope, 'sending_access');
    accessToken = body.access_token;
    await page.context().close();
  });

  browserTest('the grant is listed on the Integrations page and revoked there', async () => {
    await owner.goto(`${t.url}/dashboard/integrations`);
    const row = owner.getByRole('row', { name: /Acme CRM/ });
    await row.waitFor();
    assert.match((await row.textContent())!, /Sending only/);
    owner.once('dialog', (d) => d.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText(/Revoked/).waitFor();
    await shots.shot('revoked', owner);
    const r = await t.api('POST', '/emails', {
      key: accessToken,
      body: { from: 'a@mailroom.test', to: 'b@example.com', subject: 's', text: 't' },
    });
    assert.equal(r.status, 403);
    assert.deepEqual(errors, []);
  });
});
