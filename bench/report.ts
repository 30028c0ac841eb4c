// Formatting of the bench's output: aligned text tables for the terminal, markdown for docs/benchmarks.md,
// and the summary rows (metric, value, target, status) every section contributes to.

export type Status = 'PASS' | 'FAIL' | 'INFO' | 'SKIP';

export interface SummaryRow {
  section: 'corpora' | 'speed' | 'fuzz' | 'judge' | 'adversarial' | 'traffic' | 'serve' | 'teams';
  metric: string;
  value: string;
  target: string;
  status: Status;
}

/** A row against a numeric target: `>=` or `<=`; NaN (nothing measured) is SKIP, never PASS. */
export function targetRow(
  section: SummaryRow['section'],
  metric: string,
  value: number,
  op: '>=' | '<=' | '==',
  target: number,
  format: (n: number) => string,
): SummaryRow {
  const shown = Number.isNaN(value) ? 'n/a' : format(value);
  const t = `${op === '>=' ? '≥' : op === '<=' ? '≤' : '='} ${format(target)}`;
  if (Number.isNaN(value)) return { section, metric, value: shown, target: t, status: 'SKIP' };
  const ok = op === '>=' ? value >= target : op === '<=' ? value <= target : value === target;
  return { section, metric, value: shown, target: t, status: ok ? 'PASS' : 'FAIL' };
}

export function infoRow(section: SummaryRow['section'], metric: string, value: string): SummaryRow {
  return { section, metric, value, target: '—', status: 'INFO' };
}

export function skipRow(section: SummaryRow['section'], metric: string, why: string): SummaryRow {
  return { section, metric, value: why, target: '—', status: 'SKIP' };
}

/** Display width of a string in a monospace terminal (counts code points; good enough for our ASCII-ish text). */
function width(s: string): number {
  return [...s].length;
}

/** Left-aligned columns separated by two spaces; numeric-looking cells are right-aligned. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const cols = Math.max(...all.map((r) => r.length));
  const widths: number[] = [];
  for (let c = 0; c < cols; c++) widths.push(Math.max(...all.map((r) => width(r[c] ?? ''))));
  const numeric = /^[-+]?[\d.,]+(?:\s?(?:%|µs|ms|x|×))?$/;
  const line = (r: readonly string[]): string =>
    widths
      .map((w, c) => {
        const cell = r[c] ?? '';
        const pad = ' '.repeat(w - width(cell));
        return numeric.test(cell) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The same table in markdown; `|` inside cells is escaped so commands do not break the table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const esc = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, '⏎');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${header.map((_, i) => esc(r[i] ?? '')).join(' | ')} |`),
  ].join('\n');
}

export function summaryTable(rows: readonly SummaryRow[], markdown = false): string {
  const header = ['metric', 'value', 'target', 'result'];
  const body = rows.map((r) => [r.metric, r.value, r.target, r.status]);
  return markdown ? markdownTable(header, body) : textTable(header, body);
}

/** A command shortened for one report line: control characters made visible, long text cut in the middle. */
export function preview(s: string, max = 80): string {
  // eslint-disable-next-line no-control-regex
  const visible = s.replace(/\n/g, '⏎').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  if (visible.length <= max) return visible;
  const half = Math.floor((max - 1) / 2);
  return `${visible.slice(0, half)}…${visible.slice(visible.length - half)}`;
}

export function formatUs(n: number): string {
  return n >= 100 ? `${n.toFixed(0)} µs` : `${n.toFixed(1)} µs`;
}

export function formatMs(n: number): string {
  return n >= 100 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
