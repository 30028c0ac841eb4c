// Format-preserving edits of a client's JSON settings file. People keep their own settings in these
// files (and some clients rewrite them too), so an edit must change only the bytes it means to change:
// the file's own indentation and line endings are detected and reused, and removing what an earlier
// insertion added gives back the original bytes. jsonc-parser gives the syntax tree with offsets and
// applies the edits; the edits themselves are computed here rather than with its `modify`, whose
// formatter re-formats every line an edit touches (so a neighbour sharing such a line would change too).

import { applyEdits, findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { AsimovError } from '../core/errors.ts';

/** Which extensions of plain JSON the client itself accepts; anything it would not read is refused. */
export interface JsonDialect {
  comments?: boolean;
  trailingCommas?: boolean;
}

export interface JsonFormat {
  /** One level of indentation: a tab, or some spaces. */
  indent: string;
  eol: '\n' | '\r\n';
}

export type JsonPath = readonly (string | number)[];

/** A parsed settings text whose top-level value is an object. */
export interface JsonDocument {
  text: string;
  root: Node;
  file: string;
  dialect: JsonDialect;
  format: JsonFormat;
}

const DEFAULT_FORMAT: JsonFormat = { indent: '  ', eol: '\n' };

/** Whether a settings text holds nothing at all (an empty file is treated as a missing one). */
export function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** The indentation unit and line ending the text already uses (2 spaces and LF when it shows none). */
export function detectFormat(text: string): JsonFormat {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  // The smallest non-zero indentation of a line that starts with a key or a value is one level.
  let indent: string | null = null;
  for (const m of text.matchAll(/(?:^|\n)([ \t]+)["{[\d\-tfn]/g)) {
    const ws = m[1]!;
    if (ws.startsWith('\t')) return { indent: '\t', eol };
    if (!/^ +$/.test(ws)) continue;
    if (indent === null || ws.length < indent.length) indent = ws;
  }
  return { indent: indent ?? DEFAULT_FORMAT.indent, eol };
}

/** A value as a new file's content: the given indentation, and a final line ending. */
export function serializeJson(value: unknown, format: JsonFormat = DEFAULT_FORMAT): string {
  return `${JSON.stringify(value, null, format.indent).split('\n').join(format.eol)}${format.eol}`;
}

const PARSE_ERROR_WORDS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'a property name in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: "a ':' was expected",
  CommaExpected: "a ',' was expected",
  CloseBraceExpected: "a '}' was expected",
  CloseBracketExpected: "a ']' was expected",
  EndOfFileExpected: 'the file should end after the top-level value',
  InvalidCommentToken: 'comments are not allowed in this file',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'malformed \\u escape',
  InvalidEscapeCharacter: 'malformed escape sequence',
  InvalidCharacter: 'a control character inside a string',
};

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export function invalidAt(doc: { text: string; file: string }, offset: number, message: string, key?: string): AsimovError {
  return new AsimovError('wire_settings_invalid', message, { file: doc.file, ...lineColumn(doc.text, offset), ...(key ? { key } : {}) });
}

/**
 * Parses a settings text. Every syntax error, and a top-level value that is not an object, throws
 * AsimovError `wire_settings_invalid` naming file, line and column: such a file is never rewritten,
 * because the client could not read it either and the person must see what is wrong.
 */
export function parseJsonDocument(text: string, file: string, dialect: JsonDialect = {}): JsonDocument {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    disallowComments: !dialect.comments,
    allowTrailingComma: dialect.trailingCommas ?? false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first) {
    const name = printParseErrorCode(first.error);
    // jsonc-parser reports a trailing comma as a missing value or key at the closing bracket.
    const trailingComma = (name === 'ValueExpected' || name === 'PropertyNameExpected')
      && /^[\]}]/.test(text.slice(first.offset)) && /,\s*$/.test(text.slice(0, first.offset));
    const what = trailingComma ? 'a trailing comma before this bracket' : PARSE_ERROR_WORDS[name] ?? name;
    throw invalidAt({ text, file }, first.offset, `not valid JSON: ${what}`);
  }
  if (!root) throw invalidAt({ text, file }, 0, 'not valid JSON: the file holds no value');
  if (root.type !== 'object') {
    throw invalidAt({ text, file }, root.offset, `the top-level value must be an object ({ … }), found ${describeNode(root)}`);
  }
  return { text, root, file, dialect, format: detectFormat(text) };
}

/** "an array", "a string"…: for messages about a value of the wrong type. */
export function describeNode(n: Node): string {
  switch (n.type) {
    case 'object': return 'an object';
    case 'array': return 'an array';
    case 'string': return 'a string';
    case 'number': return 'a number';
    case 'boolean': return 'a boolean';
    default: return 'null';
  }
}

/** The dotted form of a path, for messages: `hooks.PreToolUse[1].hooks`. */
export function pathToString(path: JsonPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * The value node of an object's property. A key given twice is refused: clients keep the last one
 * (JSON.parse) while an edit could land on the first, so the edit would not be what takes effect.
 */
export function propertyNode(doc: JsonDocument, obj: Node, key: string, path: JsonPath = []): Node | undefined {
  let found: Node | undefined;
  for (const prop of obj.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (k?.value !== key) continue;
    if (found) throw invalidAt(doc, k.offset, `the key "${key}" appears twice; remove one of them`, pathToString([...path, key]));
    found = v;
  }
  return found;
}

/**
 * Sets the value at `path`. An existing value is replaced in place; a missing one is added at the end
 * of its object or array (an array index equal to the length appends), creating missing objects on
 * the way. Each containing value must be an object or array as the path says, or it throws.
 */
export function setJsonValue(doc: JsonDocument, path: JsonPath, value: unknown): string {
  let node = doc.root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const here = path.slice(0, i);
    let child: Node | undefined;
    if (typeof seg === 'string') {
      if (node.type !== 'object') throw invalidAt(doc, node.offset, `must be an object, found ${describeNode(node)}`, pathToString(here) || undefined);
      child = propertyNode(doc, node, seg, here);
    } else {
      if (node.type !== 'array') throw invalidAt(doc, node.offset, `must be a list ([ … ]), found ${describeNode(node)}`, pathToString(here) || undefined);
      const n = node.children?.length ?? 0;
      if (seg < 0 || seg > n) throw new RangeError(`index ${seg} is out of range for ${pathToString(here)} (length ${n})`);
      child = node.children?.[seg];
    }
    if (!child) {
      // Build the rest of the path as one nested value and insert it here.
      let nested = value;
      for (let j = path.length - 1; j > i; j--) {
        const s = path[j]!;
        nested = typeof s === 'string' ? { [s]: nested } : [nested];
      }
      return insertChild(doc, node, typeof seg === 'string' ? seg : null, nested);
    }
    node = child;
  }
  // Replaced in place; a structured value is written in the file's style at the depth of the old one.
  return applyEdits(doc.text, [{ offset: node.offset, length: node.length, content: render(value, lineIndent(doc.text, node.offset), doc.format) }]);
}

/**
 * Removes the value at `path` (a property with its key, or a list element) together with the separator
 * and line break that an insertion at that place would have added. Returns the text unchanged when
 * nothing is there.
 */
export function removeJsonValue(doc: JsonDocument, path: JsonPath): string {
  if (path.length === 0) throw new RangeError('cannot remove the top-level value');
  const parent = findNodeAtLocation(doc.root, [...path.slice(0, -1)]);
  const last = path[path.length - 1]!;
  if (!parent) return doc.text;
  let item: Node | undefined;
  if (parent.type === 'object' && typeof last === 'string') item = propertyNode(doc, parent, last, path.slice(0, -1))?.parent;
  else if (parent.type === 'array' && typeof last === 'number') item = parent.children?.[last];
  if (!item) return doc.text;
  const siblings = parent.children!;
  const i = siblings.indexOf(item);
  const end = (n: Node) => n.offset + n.length;
  const t = doc.text;
  let from: number;
  let to: number;
  if (siblings.length === 1) {
    // The only element: empty the container entirely when nothing but blank space surrounds the item.
    const inner = parent.offset + 1;
    const innerEnd = end(parent) - 1;
    const blankAround = t.slice(inner, item.offset).trim() === '' && t.slice(end(item), innerEnd).trim() === '';
    [from, to] = blankAround ? [inner, innerEnd] : [item.offset, end(item)];
  } else if (i > 0) {
    const prev = siblings[i - 1]!;
    const gap = t.slice(end(prev), item.offset);
    if (/^\s*,\s*$/.test(gap)) [from, to] = [end(prev), end(item)];
    else {
      // Comments sit between the two: keep them, drop only the comma and the item.
      const comma = end(prev) + commaOffset(gap);
      return applyEdits(t, [{ offset: comma, length: 1, content: '' }, { offset: item.offset, length: item.length, content: '' }]);
    }
  } else {
    const next = siblings[1]!;
    const gap = t.slice(end(item), next.offset);
    if (/^\s*,\s*$/.test(gap)) [from, to] = [item.offset, next.offset];
    else {
      const comma = end(item) + commaOffset(gap);
      return applyEdits(t, [{ offset: item.offset, length: comma + 1 - item.offset, content: '' }]);
    }
  }
  return applyEdits(t, [{ offset: from, length: to - from, content: '' }]);
}

/** Where the separating comma is in the text between two siblings (skipping comments). */
function commaOffset(gap: string): number {
  for (let i = 0; i < gap.length; i++) {
    const c = gap[i];
    if (c === ',') return i;
    if (c === '/' && gap[i + 1] === '/') i = gap.indexOf('\n', i) === -1 ? gap.length : gap.indexOf('\n', i);
    else if (c === '/' && gap[i + 1] === '*') i = gap.indexOf('*/', i + 2) + 1;
  }
  throw new Error('internal: no comma between two siblings');
}

/** Adds a property (key) or a list element (key null) at the end of a container, in the file's style. */
function insertChild(doc: JsonDocument, container: Node, key: string | null, value: unknown): string {
  const t = doc.text;
  const { eol } = doc.format;
  const children = container.children ?? [];
  const head = key === null ? '' : `${JSON.stringify(key)}: `;
  const last = children[children.length - 1];
  if (!last) {
    // An empty container: the new child goes on its own line, one level deeper than the container's line.
    const base = lineIndent(t, container.offset);
    const inner = base + doc.format.indent;
    const innerText = t.slice(container.offset + 1, container.offset + container.length - 1);
    const replace = innerText.trim() === '' ? innerText.length : 0;
    const content = `${eol}${inner}${head}${render(value, inner, doc.format)}${eol}${base}`;
    return applyEdits(t, [{ offset: container.offset + 1, length: replace, content }]);
  }
  const lastEnd = last.offset + last.length;
  // After a trailing comma (where the dialect allows one) no separator is needed, and one is kept after.
  const trailing = /^\s*,/.exec(t.slice(lastEnd, container.offset + container.length - 1));
  const multiLine = /\n/.test(t.slice(container.offset, children[0]!.offset));
  if (multiLine) {
    const indent = lineIndent(t, last.offset);
    const content = `${eol}${indent}${head}${render(value, indent, doc.format)}`;
    if (trailing) return applyEdits(t, [{ offset: lastEnd + trailing[0].length, length: 0, content: `${content},` }]);
    return applyEdits(t, [{ offset: lastEnd, length: 0, content: `,${content}` }]);
  }
  // A container written on one line stays on one line.
  const content = `${head}${JSON.stringify(value)}`;
  if (trailing) return applyEdits(t, [{ offset: lastEnd + trailing[0].length, length: 0, content: ` ${content},` }]);
  return applyEdits(t, [{ offset: lastEnd, length: 0, content: `, ${content}` }]);
}

/** A value pretty-printed in the file's style, its continuation lines indented from `base`. */
function render(value: unknown, base: string, format: JsonFormat): string {
  return JSON.stringify(value, null, format.indent).split('\n').join(format.eol + base);
}

/** The blank space that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}
