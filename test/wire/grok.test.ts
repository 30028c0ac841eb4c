// Tier 3 for Grok CLI: the gated tools in <project>/.grok/settings.json and asimov's block in .grok/GROK.md,
// written by `asimov wire grok`; a second run changes nothing; --uninstall restores both files; --list
// never claims more than advisory. Also the instruction block on its own.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BLOCK_BEGIN, BLOCK_END, planInstructionBlock } from '../../src/wire/instruction-block.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/asimov.cjs');

test('the instruction block: appended after the person\'s text, replaced in place, removed exactly', () => {
  const own = '# My rules\n\nBe brief.\n';
  const added = planInstructionBlock(own, 'Use asimov.\n', false);
  assert.equal(added.text, `${own}\n${BLOCK_BEGIN}\nUse asimov.\n${BLOCK_END}\n`);
  assert.deepEqual(planInstructionBlock(added.text, 'Use asimov.\n', false), { text: added.text, changes: [] });
  const edited = `${added.text!}More of mine.\n`;
  const updated = planInstructionBlock(edited, 'Use asimov, always.\n', false);
  assert.deepEqual(updated.changes, ['updated asimov\'s instructions']);
  assert.ok(updated.text!.endsWith(`Use asimov, always.\n${BLOCK_END}\nMore of mine.\n`));
  assert.equal(planInstructionBlock(added.text, '', true).text, own);
  // A file that held nothing but the block goes away; no block, nothing to do.
  assert.equal(planInstructionBlock(planInstructionBlock(null, 'x', false).text, '', true).text, null);
  assert.deepEqual(planInstructionBlock(own, '', true), { text: own, changes: [] });
});

test('asimov wire grok: both files, idempotent, exact uninstall, --list says advisory (tier 3)', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-wire-grok-')));
  try {
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, '.grok'), { recursive: true });
    mkdirSync(home);
    const settings = join(project, '.grok', 'settings.json');
    const instructions = join(project, '.grok', 'GROK.md');
    const ownSettings = '{\n  "model": "grok-code-fast-1"\n}\n';
    const ownInstructions = 'Answer in French.\n';
    writeFileSync(settings, ownSettings);
    writeFileSync(instructions, ownInstructions);
    const wire = (...args: string[]) => spawnSync(process.execPath, [BIN, 'wire', ...args], { cwd: project, env: { PATH: '/nonexistent', HOME: home }, encoding: 'utf8' });

    const r = wire('grok');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\(project, tier 3\)/);
    assert.match(r.stdout, /ADVISORY ONLY/);
    const entry = JSON.parse(readFileSync(settings, 'utf8')).mcpServers.asimov;
    assert.deepEqual(entry, { name: 'asimov', transport: { type: 'stdio', command: process.execPath, args: [BIN, 'mcp', 'tools'] } });
    assert.equal(JSON.parse(readFileSync(settings, 'utf8')).model, 'grok-code-fast-1');
    assert.match(readFileSync(instructions, 'utf8'), /^Answer in French\.\n\n<!-- asimov:begin[\s\S]*mcp__asimov__bash[\s\S]*<!-- asimov:end -->\n$/);

    const list = wire('--list');
    assert.match(list.stdout, /\nGrok CLI \(grok\) +no +project +3 +ADVISORY ONLY/);
    assert.doesNotMatch(list.stdout, /Grok CLI \(grok\) +no +project +[12] /);

    assert.match(wire('grok').stdout, /nothing to change/);
    assert.equal(wire('grok', '--tier', '1').status, 1, 'grok has no tier 1');
    const un = wire('grok', '--uninstall');
    assert.equal(un.status, 0, un.stderr);
    assert.equal(readFileSync(settings, 'utf8'), ownSettings);
    assert.equal(readFileSync(instructions, 'utf8'), ownInstructions);
    // Without the person's files, uninstall leaves nothing behind.
    rmSync(join(project, '.grok'), { recursive: true });
    assert.equal(wire('grok').status, 0);
    assert.equal(wire('grok', '--uninstall').status, 0);
    assert.ok(!existsSync(instructions));
    assert.ok(!existsSync(settings), 'the settings file wire created is deleted, not left as {}');
    assert.ok(!existsSync(join(project, '.grok')), 'and so is the directory it created');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
