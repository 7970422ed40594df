// The dashboard in Debian's Chromium (playwright-core, never a downloaded browser): why a browser
// test must skip and a test that skips by itself, the launch, a desktop page that records script
// errors, screenshots into MAILROOM_SCREENSHOT_DIR (none when unset), the owner's first-run setup.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import type { Config } from '../../src/config/schema.js';
import { UI_DIST } from '../../src/http/dashboard/ui.js';
import { startCaptureApp, type CaptureApp } from './capture-app.js';
import { closeAll } from './close-all.js';

const CHROMIUM = process.env.MAILROOM_TEST_CHROMIUM ?? '/usr/bin/chromium'; // another path: to try the skips
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export const OWNER = { name: 'Olive Owner', email: 'owner@example.com', password: 'owner-password-1' };

/**
 * A reason to skip, or false when a browser test can run. Skipped on a developer machine without
 * Chromium or a built dashboard; under CI nothing is skipped: a missing browser fails the run
 * instead of passing it silently.
 */
export const browserSkip = process.env.CI
  ? false
  : !fs.existsSync(CHROMIUM)
    ? `no ${CHROMIUM} (apt-get install chromium)`
    : !fs.existsSync(path.join(UI_DIST, 'index.html'))
      ? 'ui/dist not built (npm run build)'
      : false;

/**
 * A browser test, skipped one by one (not through its suite) so that the runner's summary counts
 * every skip: a skipped `describe` reports `skipped 0`. The suite's `before` must return early on
 * `browserSkip`, since hooks run even when all tests skip.
 */
export const browserTest = (name: string, fn: () => Promise<void>) => test(name, { skip: browserSkip }, fn);

export const launchBrowser = () => chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 });

/** A 1280×800 light-theme page; uncaught script errors are pushed to `errors`. */
export async function desktopPage(
  browser: Browser,
  errors: string[],
  viewport = { width: 1280, height: 800 },
): Promise<Page> {
  const ctx = await browser.newContext({ viewport, colorScheme: 'light' });
  ctx.setDefaultTimeout(10_000);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/** A desktop page on a new installation, signed up as OWNER and on the Domains page. */
export async function ownerPage(
  browser: Browser,
  baseUrl: string,
  errors: string[],
  viewport = { width: 1280, height: 800 },
): Promise<Page> {
  const page = await desktopPage(browser, errors, viewport);
  await page.goto(`${baseUrl}/`);
  await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
  await setUpOwner(page);
  await page.getByRole('heading', { name: 'Domains' }).waitFor();
  return page;
}

/** A 390×844 touch phone, as the phone-width tests use. */
export const PHONE = { width: 390, height: 844 };
export async function phonePage(browser: Browser, errors: string[]): Promise<Page> {
  const ctx = await browser.newContext({ viewport: PHONE, colorScheme: 'light', isMobile: true, hasTouch: true });
  ctx.setDefaultTimeout(10_000);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/**
 * `shot(name, page)` writes `<dir>/<name>.png`, a full-page capture unless told otherwise, only
 * when MAILROOM_SCREENSHOT_DIR names a directory; otherwise it does nothing. A screenshot asserts
 * nothing, and encoding full-page PNGs nobody looks at was a large share of Chromium's CPU in a
 * test run. To see them: `MAILROOM_SCREENSHOT_DIR=/tmp/shots node --import tsx --test FILE`.
 * `report()` prints where they went (nothing when they are off).
 */
export function screenshots(prefix: string) {
  const dir = process.env.MAILROOM_SCREENSHOT_DIR;
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const shot = async (name: string, p: Page, fullPage = true) => {
    if (dir) await p.screenshot({ path: path.join(dir, `${name}.png`), fullPage });
  };
  const report = () => {
    if (dir) console.log(`# ${prefix} screenshots: ${dir}`);
  };
  return { dir, shot, report };
}

/** Fills in the first-run form (the page must show "Welcome to Mailroom") and submits it. */
export async function setUpOwner(page: Page): Promise<void> {
  await page.getByLabel('Your name').fill(OWNER.name);
  await page.getByLabel('Email').fill(OWNER.email);
  await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
  await page.getByLabel('Repeat the password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Create owner account' }).click();
}

/**
 * A new member joins through an invite link in the browser as a person would: name and address on
 * the invite page ("Check your email"), then the link emailed to them, where they choose a password.
 * `link` is the invite's URL on the test server; `mailOf` reads the newest system mail to the address.
 */
export async function joinThroughInvite(
  member: Page,
  link: string,
  who: { name: string; email: string; password: string },
  mailOf: (to: string) => Promise<{ text: string } | undefined>,
  shot?: (name: string, p: Page) => Promise<void>,
): Promise<void> {
  await member.goto(link);
  await member.getByLabel('Your name').fill(who.name);
  await member.getByLabel('Email').fill(who.email);
  await member.getByRole('button', { name: 'Create account and join' }).click();
  await member.getByRole('heading', { name: 'Check your email' }).waitFor();
  if (shot) await shot('invite-check-email', member);
  const confirm = /(http\S+\/dashboard\/verify\/[A-Za-z0-9]{40})/.exec((await mailOf(who.email))?.text ?? '')?.[1];
  if (!confirm) throw new Error(`no confirmation link was emailed to ${who.email}`);
  await member.goto(new URL(new URL(confirm).pathname, link).toString()); // the app's public URL is not the test server's port
  await member.getByLabel('Choose a password').fill(who.password);
  await member.getByRole('button', { name: /^Confirm and join / }).click();
  await member.waitForURL(/\/dashboard\/emails/);
}

/**
 * A describe block's app in capture mode and its Chromium: started in `before` (not when browser
 * tests skip: hooks run even then), closed in `after`, which also prints where the screenshots are.
 * `setUp` runs once the app is up, before the browser starts. Read `s.t` and `s.browser` in tests.
 */
export function captureSuite(
  prefix: string,
  opts: { config?: Partial<Config>; setUp?: (t: CaptureApp) => Promise<void> } = {},
) {
  const s = {
    t: undefined as unknown as CaptureApp,
    browser: undefined as unknown as Browser,
    errors: [] as string[],
    shots: screenshots(prefix),
  };
  before(async () => {
    if (browserSkip) return;
    s.t = await startCaptureApp(opts.config);
    await opts.setUp?.(s.t);
    s.browser = await launchBrowser();
  });
  after(async () => {
    await closeAll(
      () => s.browser?.close(),
      () => s.t?.close(),
    );
    s.shots.report();
  });
  return s;
}

/** A phone page signed in as OWNER (who must exist), in the signed-in shell. */
export async function ownerPhone(browser: Browser, baseUrl: string, errors: string[]): Promise<Page> {
  const phone = await phonePage(browser, errors);
  await phone.goto(`${baseUrl}/`);
  await phone.getByLabel('Email').fill(OWNER.email);
  await phone.getByLabel('Password').fill(OWNER.password);
  await phone.getByRole('button', { name: 'Sign in' }).click();
  await phone.getByRole('button', { name: 'Menu' }).waitFor();
  return phone;
}

/** The page is no wider than `width` (no sideways scrolling). */
export async function assertFits(page: Page, width: number): Promise<void> {
  const w = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
  assert.ok(w <= width, `the page is ${w} px wide in a ${width} px window`);
}

/**
 * Until `shown` is on `page`, which re-reads what it shows by its own timer every `everyMs`. The
 * caller has called `page.clock.install()` before loading the page (time still runs as usual);
 * while waiting, the clock is moved on `everyMs` at a time, so the page's timer fires at once
 * instead of the test waiting the seconds out. Fails after `timeoutMs` of real time.
 */
export async function untilReRead(page: Page, shown: Locator, everyMs: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ok = await shown.waitFor({ timeout: 300 }).then(
      () => true,
      () => false,
    );
    if (ok) return;
    if (Date.now() > end) return shown.waitFor({ timeout: 1 }); // fails, naming what it waited for
    await page.clock.fastForward(everyMs);
  }
}
