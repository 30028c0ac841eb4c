// Tests of the bench's report formatting: target rows, aligned tables, markdown escaping, previews.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownTable, preview, targetRow, textTable } from '../../bench/report.ts';

describe('bench report', () => {
  test('a target row passes or fails on its comparison and is skipped when nothing was measured', () => {
    const f = (n: number): string => `${n}%`;
    assert.equal(targetRow('corpora', 'm', 97, '>=', 97, f).status, 'PASS');
    assert.equal(targetRow('corpora', 'm', 96.9, '>=', 97, f).status, 'FAIL');
    assert.equal(targetRow('speed', 'm', 31, '<=', 30, f).status, 'FAIL');
    assert.equal(targetRow('fuzz', 'm', 0, '==', 0, f).status, 'PASS');
    const skipped = targetRow('corpora', 'm', Number.NaN, '>=', 97, f);
    assert.equal(skipped.status, 'SKIP');
    assert.equal(skipped.value, 'n/a');
    assert.equal(skipped.target, '≥ 97%');
  });

  test('a text table aligns columns and right-aligns numbers', () => {
    const t = textTable(['metric', 'value'], [['a', '1.5%'], ['longer name', '100.0%']]).split('\n');
    assert.equal(t[0], 'metric       value');
    assert.equal(t[2], 'a              1.5%');
    assert.equal(t[3], 'longer name  100.0%');
  });

  test('markdown cells escape pipes and newlines so commands do not break the table', () => {
    const md = markdownTable(['cmd'], [['ls | sh\nx']]);
    assert.equal(md.split('\n')[2], '| ls \\| sh⏎x |');
  });

  test('a preview shows control characters and cuts long text in the middle', () => {
    assert.equal(preview('a\0b\nc'), 'a\\x00b⏎c');
    const p = preview('x'.repeat(50) + 'y'.repeat(50), 21);
    assert.equal(p, `${'x'.repeat(10)}…${'y'.repeat(10)}`);
  });
});
