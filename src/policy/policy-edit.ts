// Adding a custom rule to a policy file a person keeps: the new text leaves every byte of what was there
// (comments, order, quoting) as it was, apart from the rule itself, and the file is replaced only after
// the caller's check (the real policy loader) accepted the result, so a broken policy is never left behind.

import { isDeepStrictEqual } from 'node:util';
import { mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, isSeq, parseDocument, stringify, type Document } from 'yaml';
import { AsimovError } from '../core/errors.ts';

/** A custom rule as plain data: what `custom:` lists. */
export type CustomRuleData = { id: string } & Record<string, unknown>;

/** Long reasons stay on one line rather than being folded. */
const RENDER = { lineWidth: 0 } as const;

/** The `custom:` entry with this id in a policy file's text, if there is one. */
export function customRuleIn(text: string, id: string): unknown {
  const data = parseDocument(text).toJS({ maxAliasCount: 100 }) as unknown;
  const custom = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['custom'] : undefined;
  return Array.isArray(custom) ? custom.find((r) => r !== null && typeof r === 'object' && (r as Record<string, unknown>)['id'] === id) : undefined;
}

/** The rule as the lines of one `custom:` item (`- id: …`), indented by `indent` spaces. */
export function renderCustomItem(rule: CustomRuleData, indent = 2): string {
  return indentLines(stringify([rule], RENDER), indent);
}

/**
 * The policy text with `rule` in its `custom:` list: replacing the entry with the same id, else added at
 * the end of the list (a `custom:` key is added when there is none; a new file starts with `header`).
 * The result is checked to hold exactly the old data plus the rule; when a plain splice cannot manage that
 * (a flow list `custom: [...]`, an empty `custom:`), the yaml Document API rewrites the file instead,
 * keeping its comments but possibly not its spacing.
 */
export function upsertCustomRule(text: string | null, rule: CustomRuleData, header: string): string {
  if (text === null || text.trim() === '') return `${header}version: 1\n\ncustom:\n${renderCustomItem(rule)}`;
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new AsimovError('policy_parse_error', `the policy file cannot be parsed: ${doc.errors[0]!.message}`);
  const expected = withRule(doc.toJS({ maxAliasCount: 100 }) as unknown, rule);
  const spliced = splice(text, doc, rule);
  if (spliced !== null && sameData(spliced, expected)) return spliced;
  const rewritten = rewrite(doc, rule);
  if (sameData(rewritten, expected)) return rewritten;
  throw new AsimovError('internal', `could not add custom rule ${rule.id} to the policy file without changing the rest of it; add it by hand`);
}

/** What the file's data must be afterwards. */
function withRule(data: unknown, rule: CustomRuleData): unknown {
  const top = data !== null && typeof data === 'object' && !Array.isArray(data) ? { ...(data as Record<string, unknown>) } : {};
  const list = Array.isArray(top['custom']) ? [...(top['custom'] as unknown[])] : [];
  const at = list.findIndex((r) => r !== null && typeof r === 'object' && (r as Record<string, unknown>)['id'] === rule.id);
  if (at >= 0) list[at] = rule;
  else list.push(rule);
  top['custom'] = list;
  return top;
}

function sameData(text: string, expected: unknown): boolean {
  const doc = parseDocument(text, { uniqueKeys: true });
  return doc.errors.length === 0 && isDeepStrictEqual(doc.toJS({ maxAliasCount: 100 }), JSON.parse(JSON.stringify(expected)));
}

/** Text edits that touch only the rule's own lines; null when the file's shape calls for the Document API. */
function splice(text: string, doc: Document, rule: CustomRuleData): string | null {
  if (!isMap(doc.contents)) return null;
  const custom = doc.get('custom', true);
  if (custom === undefined) {
    const sep = text.endsWith('\n') ? '' : '\n';
    return `${text}${sep}\ncustom:\n${renderCustomItem(rule)}`;
  }
  if (!isSeq(custom) || custom.flow || custom.items.length === 0 || !custom.range) return null;
  const index = custom.items.findIndex((item) => isMap(item) && item.get('id') === rule.id);
  if (index >= 0) {
    const item = custom.items[index];
    if (!isMap(item) || item.flow || !item.range) return null;
    const [start, end] = item.range;
    const col = columnOf(text, start);
    // The item's first line follows its `- `; the rest are indented to the item's column.
    let body = indentLines(stringify(rule, RENDER), col).slice(col);
    if (!text.slice(start, end).endsWith('\n')) body = body.replace(/\n$/, '');
    return text.slice(0, start) + body + text.slice(end);
  }
  const at = custom.range[1];
  const item = renderCustomItem(rule, columnOf(text, custom.range[0]));
  return `${text.slice(0, at)}${text[at - 1] === '\n' ? '' : '\n'}${item}${text.slice(at)}`;
}

function rewrite(doc: Document, rule: CustomRuleData): string {
  const copy = doc.clone();
  const custom = copy.get('custom', true);
  if (isSeq(custom)) {
    const index = custom.items.findIndex((item) => isMap(item) && item.get('id') === rule.id);
    if (index >= 0) custom.set(index, copy.createNode(rule));
    else custom.add(copy.createNode(rule));
    custom.flow = false;
  } else {
    copy.set('custom', copy.createNode([rule]));
  }
  return copy.toString(RENDER);
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function indentLines(block: string, n: number): string {
  const pad = ' '.repeat(n);
  return block.split('\n').map((l) => (l === '' ? l : pad + l)).join('\n');
}

/**
 * Writes `text` as the policy file, but only once `check` accepted it: `check` gets a scratch file holding
 * the new text (next to the real one, so relative settings read the same) and throws to refuse. The file is
 * replaced by a rename, so it is never half-written; a symlinked policy file is written where it points.
 */
export function commitPolicyText(file: string, text: string, check: (scratch: string) => void): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet: created below.
  }
  const dir = dirname(target);
  const mode = statSync(target, { throwIfNoEntry: false })?.mode;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new AsimovError('policy_io_error', `cannot create ${dir}: ${(e as Error).message}`, { file }, { cause: e });
  }
  const scratch = join(dir, `.${basename(target)}.${process.pid}.asimov-new`);
  try {
    writeFileSync(scratch, text, { mode: mode !== undefined ? mode & 0o777 : 0o644 });
    check(scratch);
    renameSync(scratch, target);
  } catch (e) {
    rmSync(scratch, { force: true });
    if (e instanceof AsimovError) throw e;
    throw new AsimovError('policy_io_error', `cannot write the policy file: ${(e as Error).message}`, { file }, { cause: e });
  }
}
