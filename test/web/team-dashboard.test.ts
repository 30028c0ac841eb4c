// The dashboard's Team view in a real browser (Debian's chromium, playwright-core) against a real `asimov serve`
// whose database holds a team (helpers/team.ts): the machines with the broken chain shown as broken with its
// problem and the silent one as stale, the people and agents, the most asked calls, and a click on a person
// opening the decision list filtered to them. ASIMOV_SCREENSHOTS=1 writes docs/images/dashboard-team.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/serve.ts';
import { BOB_PROBLEM, CURL, insertTeam, TEAM_ROWS } from '../helpers/team.ts';

// What the functions handed to page.waitForFunction use of the page (they run in the browser; this file is
// type-checked for Node, without the DOM library).
declare const document: {
  querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }> & Iterable<{ getAttribute(name: string): string | null }>;
};

const ROOT = join(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.ASIMOV_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : null;

const missing = !existsSync(CHROMIUM)
  ? `no chromium at ${CHROMIUM} (apt-get install chromium)`
  : !existsSync(join(ROOT, 'dist/web/app.js'))
    ? 'dist/web is not built (node scripts/build.mjs)'
    : null;
if (missing) console.log(`# team dashboard browser tests skipped: ${missing}`);

describe('the Team view in chromium', { skip: missing ?? false }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    s = await startTestServer();
    await insertTeam(s.server.deps.db, Date.now());
    const token = await s.token(['read'], 'team-lead');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1366, height: 1000 } });
    await page.goto(s.url);
    await page.fill('#token', token);
    await page.click('[data-testid=signin] button[type=submit]');
    await page.locator('header .who').waitFor();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('the Team tab lists every machine; the broken chain is shown broken with its problem, the silent machine stale', async () => {
    await page.getByRole('button', { name: 'Team' }).click();
    assert.equal(await page.getByRole('button', { name: 'Team' }).getAttribute('aria-current'), 'page');
    assert.match(page.url(), /#team$/);
    const machines = page.locator('[data-testid=machines] [data-testid=machine]');
    await machines.first().waitFor({ timeout: 5000 });
    assert.deepEqual(await machines.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))), ['c-bob', 'c-al1', 'c-al2']);
    const bob = page.locator('[data-testid=machine][data-id=c-bob]');
    assert.equal(await bob.getAttribute('data-status'), 'broken');
    assert.equal(await bob.locator('[data-testid=chain]').innerText(), 'chain broken');
    assert.match(await bob.locator('[data-testid=problem]').innerText(), new RegExp(BOB_PROBLEM.slice(0, 30)));
    assert.equal(await page.locator('[data-testid=machine][data-id=c-al1] [data-testid=chain]').innerText(), 'chain ok');
    assert.match(await page.locator('[data-testid=machine][data-id=c-al1]').innerText(), /5 min ago/);
    assert.equal(await page.locator('[data-testid=machine][data-id=c-al1] [data-testid=stale]').count(), 0);
    assert.match(await page.locator('[data-testid=machine][data-id=c-al2]').innerText(), /3 d ago/);
    await page.locator('[data-testid=machine][data-id=c-al2] [data-testid=stale]').waitFor();
    // Every problem of the broken chain, on demand.
    await bob.getByRole('button', { name: 'All problems' }).click();
    assert.match(await page.locator('[data-testid=problems]').innerText(), /cut[\s\S]*prev_mismatch/);
  });

  test('people, agents and the most asked calls are listed; the top one is the call asked most', async () => {
    await page.locator('[data-testid=person]').first().waitFor();
    assert.deepEqual(await page.locator('[data-testid=person]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name'))), ['bob', 'alice', 'ci-bot']);
    assert.match(await page.locator('[data-testid=agents]').innerText(), /codex[\s\S]*claude-code/);
    const top = page.locator('[data-testid=top-asked] [data-testid=asked]').first();
    assert.match(await top.innerText(), /^4\s+net\.pipe-to-shell/);
    assert.ok((await top.innerText()).includes(CURL));
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.getByRole('button', { name: 'Hide problems' }).click();
      await page.screenshot({ path: join(SHOTS, 'dashboard-team.png'), fullPage: true });
    }
  });

  test('clicking a person opens the decision list filtered to their decisions', async () => {
    await page.locator('[data-testid=people]').getByRole('button', { name: 'alice', exact: true }).click();
    await page.locator('[data-testid=feed]').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Decisions' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.inputValue('input[name=principal]'), 'alice');
    const alice = TEAM_ROWS.filter((r) => r.principal === 'alice').map((r) => r.id).sort();
    await page.waitForFunction(
      (want) => [...document.querySelectorAll('[data-testid=decision]')].map((r) => r.getAttribute('data-id')).sort().join() === want,
      alice.join(),
      { timeout: 5000 },
    );
    // A machine narrows it to what that machine shipped.
    await page.getByRole('button', { name: 'Team' }).click();
    await page.locator('[data-testid=machines]').getByRole('button', { name: 'alice-desktop' }).click();
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid=decision]')].map((r) => r.getAttribute('data-id')).join() === 'd-al2-1',
      undefined,
      { timeout: 5000 },
    );
    assert.equal(await page.inputValue('input[name=client]'), 'c-al2');
  });
});
