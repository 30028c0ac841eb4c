// The dashboard in a real browser: Debian's chromium driven by playwright-core against a real `asimov serve`,
// with decisions made by the real CLI (`asimov check --audit`, dist/ built) writing the same audit log.
// Sign in, the live feed (a decision appears within 2 s), filters, the detail view; approvals once the
// approvals routes exist. ASIMOV_SCREENSHOTS=1 writes docs/images/dashboard-*.png (laptop and phone widths).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/serve.ts';

// What the functions handed to page.waitForFunction/evaluate use of the page (they run in the browser; this
// file is type-checked for Node, without the DOM library).
declare const document: {
  cookie: string;
  querySelectorAll(selector: string): ArrayLike<{ classList: { contains(c: string): boolean }; textContent: string | null }> & Iterable<{ classList: { contains(c: string): boolean }; textContent: string | null }>;
};

const ROOT = join(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const BIN = join(ROOT, 'bin/asimov.cjs');
const SHOTS = process.env.ASIMOV_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : null;
const LAPTOP = { width: 1366, height: 860 };
const PHONE = { width: 390, height: 844 };

const missing = !existsSync(CHROMIUM)
  ? `no chromium at ${CHROMIUM} (apt-get install chromium)`
  : !existsSync(join(ROOT, 'dist/cli.cjs')) || !existsSync(join(ROOT, 'dist/web/app.js'))
    ? 'dist/ is not built (node scripts/build.mjs)'
    : null;
if (missing) console.log(`# dashboard browser tests skipped: ${missing}`);

describe('the dashboard in chromium', { skip: missing ?? false }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;

  /** `asimov check --audit` as a person runs it, with the server's HOME and audit log; its decision id. */
  const check = (command: string, env: Record<string, string> = {}): Promise<{ id: string; verdict: string }> =>
    new Promise((res, rej) => {
      const child = spawn(process.execPath, [BIN, 'check', '--json', '--audit', '--', command], {
        cwd: s.project,
        env: { ...s.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', rej);
      child.on('close', () => {
        try {
          const j = JSON.parse(out) as { decision_id: string; verdict: string };
          res({ id: j.decision_id, verdict: j.verdict });
        } catch {
          rej(new Error(`asimov check printed no decision: ${out} ${err}`));
        }
      });
    });

  const rows = (p: Page) => p.locator('[data-testid=feed] [data-testid=decision]');

  before(async () => {
    s = await startTestServer();
    token = await s.token(['read', 'approve'], 'dashboard-test');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: LAPTOP });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('signs in with a token pasted into the form; a wrong one is refused with a message', async () => {
    await page.goto(s.url);
    await page.fill('#token', 'asv_' + 'x'.repeat(43));
    await page.click('[data-testid=signin] button[type=submit]');
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /unknown or revoked/);
    await page.fill('#token', token);
    await page.click('[data-testid=signin] button[type=submit]');
    await page.locator('[data-testid=live].on').waitFor({ timeout: 5000 });
    assert.match(await page.locator('header .who').innerText(), /dashboard-test/);
    // The cookie is out of the page's reach.
    assert.equal(await page.evaluate(() => document.cookie), '');
  });

  test('a decision made by `asimov check --audit` in another process appears in the feed within 2 s', async () => {
    const d = await check('rm -rf ~/old-project');
    const t0 = Date.now();
    await page.locator(`[data-testid=decision][data-id="${d.id}"]`).waitFor({ timeout: 2000 });
    const ms = Date.now() - t0;
    assert.ok(ms <= 2000, `appeared after ${ms} ms`);
    assert.equal(await rows(page).first().getAttribute('data-id'), d.id, 'newest on top');
  });

  test('filters narrow the feed (verdict, text) and clearing them brings every decision back', async () => {
    await check('ls -la');
    await check('cat README.md');
    await check('rm -rf /');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=decision]').length >= 4, undefined, { timeout: 3000 });
    const all = await rows(page).count();
    await page.selectOption('select[name=verdict]', 'deny');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=decision]')].every((r) => r.classList.contains('v-deny')), undefined, { timeout: 3000 });
    const denied = await rows(page).count();
    assert.ok(denied >= 1 && denied < all, `${denied} of ${all}`);
    // A live decision that does not pass the filters stays out of the feed; one that does comes in.
    const allowed = await check('echo hidden-by-filter');
    const deny = await check('rm -rf / --no-preserve-root');
    await page.locator(`[data-testid=decision][data-id="${deny.id}"]`).waitFor({ timeout: 2000 });
    assert.equal(await page.locator(`[data-testid=decision][data-id="${allowed.id}"]`).count(), 0);
    await page.selectOption('select[name=verdict]', '');
    await page.fill('input[name=q]', 'README');
    await page.waitForFunction(() => {
      const r = [...document.querySelectorAll('[data-testid=decision] .summary')];
      return r.length > 0 && r.every((x) => x.textContent?.includes('README'));
    }, undefined, { timeout: 3000 });
    await page.click('[data-testid=filters] button.link');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=decision]').length >= n, all + 2, { timeout: 3000 });
  });

  test('a decision opens in the detail view: reason, findings, redacted input, policy layers', async () => {
    await page.locator('[data-testid=decision].v-deny').first().click();
    const detail = page.locator('[data-testid=detail]');
    await detail.locator('[data-testid=findings]').waitFor({ timeout: 3000 });
    assert.match(await detail.locator('[data-testid=input]').innerText(), /"command": "rm -rf/);
    assert.match(await detail.locator('[data-testid=layers]').innerText(), /builtin/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'dashboard-detail.png') });
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
  });

  test('the audit chain status and the charts are shown', async () => {
    await page.reload();
    await page.locator('[data-testid=audit-status].ok').waitFor({ timeout: 3000 });
    assert.match(await page.locator('[data-testid=audit-status]').innerText(), /intact/);
    await page.locator('[data-testid=chart-over-time] canvas').waitFor({ timeout: 3000 });
    await page.locator('[data-testid=chart-top-rules] canvas').waitFor({ timeout: 3000 });
    if (SHOTS) {
      await page.screenshot({ path: join(SHOTS, 'dashboard-laptop.png') });
      const phone = await browser.newPage({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      const cookies = await page.context().cookies();
      await phone.context().addCookies(cookies);
      await phone.goto(s.url);
      await phone.locator('[data-testid=decision]').first().waitFor({ timeout: 3000 });
      await phone.screenshot({ path: join(SHOTS, 'dashboard-phone.png') });
      await phone.close();
    }
  });

  test('a waiting call is released within 1 s of Approve, and refused on Deny', async (t) => {
    const probe = await s.call('GET', '/v1/approvals?status=pending', { token });
    if (probe.status === 404) {
      t.skip('needs the approvals routes (GET /v1/approvals, POST /v1/approvals/:id/answer) and the policy\'s approvals: section');
      return;
    }
    // The server's user policy puts a person on call: the API's soft calls wait for an answer.
    const cfg = join(s.home, '.config', 'asimov');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'policy.yaml'), 'version: 1\napprovals:\n  timeoutSec: 30\n');
    const decider = await s.token(['decide']);
    for (const [button, verdict] of [['Approve', 'allow'], ['Deny', 'deny']] as const) {
      const waiting = s.call('POST', '/v1/decide', { token: decider, body: { tool: 'shell', input: { command: `chmod 777 script-${button}.sh` }, cwd: s.project } });
      const card = page.locator('[data-testid=approval]').filter({ hasText: `script-${button}.sh` });
      await card.waitFor({ timeout: 5000 });
      const t0 = Date.now();
      await card.getByRole('button', { name: button }).click();
      const answer = await waiting;
      assert.ok(Date.now() - t0 <= 1000, `released after ${Date.now() - t0} ms`);
      assert.equal(answer.body.verdict, verdict);
      await card.waitFor({ state: 'detached', timeout: 2000 });
    }
  });
});
