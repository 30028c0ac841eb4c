// The YAML line scan: command-bearing `key: value` entries read line by line, for what the YAML parser cannot
// take (an indented fragment appended to a workflow, tabs, a file cut at 1 MiB) and for files too large to
// parse within the time a decision has (the `yaml` package needs about 1 s for 1 MB). Linear in the text.
// It reads: `key: value` and `- key: value` (plain, quoted, flow sequence), block scalars (`key: |`, `>-`,
// with indentation indicators), sequences of scalars under a key, plain scalars continued on more-indented
// lines, and `key: value` inside flow mappings on one line (`- {run: "x"}`).

/** A value found under a command-bearing key. */
export interface ScanHit {
  key: string;
  value: string;
  /** 1-based line of the key. */
  line: number;
  /** Index in a sequence under the key, when the value is one item. */
  index?: number;
}

const KEY_RE = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{}[\],&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?))[ \t]*:(?=[ \t]|$)[ \t]*(.*)$/;

interface Line {
  indent: number;
  text: string; // without the indentation
}

/** Lines made on demand from their start offsets: the scan looks at few lines besides the candidates. */
class Lines {
  /** Line start offsets, found as far as the scan has looked (a 1 MB file read to its cap is not split whole). */
  private readonly starts: number[] = [0];
  private done = false;
  constructor(private readonly src: string) {}
  /** Finds line starts up to line `j` (or the end). */
  private extend(j: number): void {
    while (!this.done && this.starts.length <= j + 1) {
      const nl = this.src.indexOf('\n', this.starts[this.starts.length - 1]!);
      if (nl === -1) this.done = true;
      else this.starts.push(nl + 1);
    }
  }
  /** Is there a line j? */
  has(j: number): boolean {
    this.extend(j);
    return j < this.starts.length;
  }
  at(j: number): Line {
    this.extend(j);
    const start = this.starts[j]!;
    const end = j + 1 < this.starts.length ? this.starts[j + 1]! - 1 : this.src.length;
    let i = start;
    while (i < end && (this.src.charCodeAt(i) === 32 || this.src.charCodeAt(i) === 9)) i++;
    return { indent: i - start, text: this.src.slice(i, end) };
  }
  /** The line holding a character offset (offsets arrive in increasing order: a moving cursor). */
  private cursor = 0;
  lineOf(offset: number): number {
    if (offset < this.starts[this.cursor]!) this.cursor = 0;
    for (;;) {
      this.extend(this.cursor + 1);
      if (this.cursor + 1 < this.starts.length && this.starts[this.cursor + 1]! <= offset) this.cursor++;
      else return this.cursor;
    }
  }
}

/** A value's trailing ` # comment`, outside quotes, removed (plain scalars only). */
function stripComment(v: string): string {
  const m = /(?:^|[ \t])#/.exec(v);
  return (m ? v.slice(0, m.index) : v).trim();
}

function unescapeDouble(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/gs, (_, e: string) => {
    switch (e[0]) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case '0': return '\0';
      case 'e': return '\x1b';
      case 'x': case 'u': case 'U': return String.fromCodePoint(parseInt(e.slice(1), 16));
      case '\n': return '';
      default: return e;
    }
  });
}

/** Folds the lines of a multi-line quoted or plain scalar (a single newline becomes a space). */
function foldLines(parts: string[]): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!.trim();
    if (i === 0) out = parts[0]!.trimEnd();
    else if (p === '') out += '\n';
    else out += (out.endsWith('\n') || out === '' ? '' : ' ') + p;
  }
  return out;
}

/**
 * Reads a scalar that starts at `v` (the text after `key:` or `- `) on line `li`; returns it and the index of
 * the last line it used. `col` is the indentation the scalar's continuation lines must exceed.
 */
function readScalar(lines: Lines, li: number, v: string, col: number): { value: string | null; end: number; list?: string[] } {
  v = v.replace(/^(?:[&!][^\s]*[ \t]+)+/, ''); // anchors and tags before the value
  if (v.startsWith('*')) return { value: null, end: li }; // an alias: its anchor was read where it was defined
  const block = /^([|>])([-+]?\d?[-+]?)[ \t]*(?:#.*)?$/.exec(v);
  if (block) {
    const body: string[] = [];
    let end = li;
    // An explicit indentation indicator counts from the node's own indentation; otherwise the first line sets it.
    const digit = /\d/.exec(block[2] ?? '');
    let indent = digit ? col + Number(digit[0]) : -1;
    for (let j = li + 1; lines.has(j); j++) {
      const l = lines.at(j);
      if (l.text === '' || l.text === '\r') {
        body.push('');
        continue;
      }
      if (l.indent <= col) break;
      if (indent === -1) indent = l.indent;
      body.push(' '.repeat(Math.max(0, l.indent - indent)) + l.text);
      end = j;
    }
    while (body.length > 0 && body[body.length - 1] === '') body.pop();
    const value = block[1] === '|' ? body.join('\n') : foldLines(body);
    return { value, end };
  }
  if (v.startsWith('"') || v.startsWith("'")) {
    const q = v[0]!;
    const parts: string[] = [];
    let cur = v.slice(1);
    let j = li;
    for (;;) {
      const close = q === '"' ? /^((?:[^"\\]|\\.)*)"/s.exec(cur) : /^((?:[^']|'')*)'/.exec(cur);
      if (close) {
        parts.push(close[1]!);
        break;
      }
      parts.push(cur);
      j++;
      if (!lines.has(j)) break;
      cur = lines.at(j).text;
    }
    const folded = foldLines(parts);
    return { value: q === '"' ? unescapeDouble(folded) : folded.replace(/''/g, "'"), end: j };
  }
  if (v.startsWith('[')) {
    // A flow sequence on this line (and the next ones until `]`).
    let s = v;
    let j = li;
    while (!/\][ \t]*(?:#.*)?$/.test(s) && lines.has(j + 1) && lines.at(j + 1).indent > col) s += ' ' + lines.at(++j).text;
    return { value: null, end: j, list: splitFlow(s.replace(/^\[/, '').replace(/\][ \t]*(?:#.*)?$/, '')) };
  }
  if (v.startsWith('{')) return { value: null, end: li };
  const parts = [stripComment(v)];
  let j = li;
  // A plain scalar continues on more-indented lines that hold no `: ` and start no comment.
  while (lines.has(j + 1)) {
    const l = lines.at(j + 1);
    if (l.text === '' || l.indent <= col || l.text.startsWith('#') || /:(?:[ \t]|$)/.test(l.text) || l.text.startsWith('- ')) break;
    parts.push(stripComment(l.text));
    j++;
  }
  return { value: parts.length === 1 ? parts[0]! : foldLines(parts), end: j };
}

/** The items of a flow sequence's inside, quotes respected. */
function splitFlow(s: string): string[] {
  const out: string[] = [];
  const re = /[ \t]*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^,]*))[ \t]*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < s.length && (m = re.exec(s)) !== null) {
    if (m[0] === '') break;
    const v = m[1] !== undefined ? unescapeDouble(m[1]) : m[2] !== undefined ? m[2].replace(/''/g, "'") : (m[3] ?? '').trim();
    if (v !== '') out.push(v);
  }
  return out;
}

/** `key: value` pairs inside a one-line flow mapping (`- {run: "curl x", name: y}`). */
function flowPairs(text: string, keys: ReadonlySet<string>, max = Infinity): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const re = /[{,][ \t]*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s:,{}"']+))[ \t]*:[ \t]*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^,{}]*))/g;
  for (const m of text.matchAll(re)) {
    const key = m[1] ?? m[2] ?? m[3] ?? '';
    if (!keys.has(key)) continue;
    const value = m[4] !== undefined ? unescapeDouble(m[4]) : m[5] !== undefined ? m[5].replace(/''/g, "'") : (m[6] ?? '').trim();
    out.push([key, value]);
    if (out.length >= max) break;
  }
  return out;
}

/** Removes leading `- ` sequence indicators; returns the column where the content starts. */
function afterDashes(l: Line): { col: number; text: string } {
  let col = l.indent;
  let t = l.text;
  for (let m = /^-(?:[ \t]+|$)/.exec(t); m && t !== ''; m = /^-(?:[ \t]+|$)/.exec(t)) {
    col += m[0].length;
    t = t.slice(m[0].length);
  }
  return { col, text: t };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

/** Every value under one of `keys`, anywhere, by lines. Never throws. */
export function scanYamlLines(text: string, keys: ReadonlySet<string>, limit = Infinity): ScanHit[] {
  const lines = new Lines(text);
  const hits: ScanHit[] = [];
  // Candidate lines: those where a key is written (found by one regex pass; the rest is never split).
  const names = [...keys].map(escapeRe).join('|');
  const candidate = new RegExp(`(?:^[ \\t]*(?:-[ \\t]+)*|[{,][ \\t]*)["']?(?:${names})["']?[ \\t]*:`, 'gm');
  // Lines already read as part of a value (a block scalar's body is not keys).
  // Line ranges already read as part of a value (a block scalar's body is not keys). Candidates come in
  // increasing line order, so ranges that end before the current line are dropped.
  let consumedRanges: Array<[number, number]> = [];
  const consume = (from: number, to: number): void => {
    consumedRanges.push([from, to]);
  };
  const isConsumed = (i: number): boolean => {
    if (consumedRanges.length > 0 && consumedRanges.some((r) => r[1] < i)) consumedRanges = consumedRanges.filter((r) => r[1] >= i);
    return consumedRanges.some((r) => r[0] <= i && i <= r[1]);
  };
  let last = -1;
  for (const c of text.matchAll(candidate)) {
    if (hits.length >= limit) break;
    const i = lines.lineOf(c.index);
    if (i === last || isConsumed(i)) continue;
    last = i;
    const l = lines.at(i);
    if (l.text === '' || l.text.startsWith('#')) continue;
    const { col, text: t } = afterDashes(l);
    if (t.startsWith('{')) {
      for (const [k, v] of flowPairs(t, keys, limit - hits.length)) if (v !== '') hits.push({ key: k, value: v, line: i + 1 });
      continue;
    }
    const m = KEY_RE.exec(t);
    if (!m) continue;
    const key = m[1] ?? m[2] ?? m[3] ?? '';
    const rest = (m[4] ?? '').trim();
    if (!keys.has(key)) {
      // `d: {run: "x"}`: the key is in a flow mapping that is this key's value.
      if (rest.startsWith('{')) for (const [k, v] of flowPairs(rest, keys, limit - hits.length)) if (v !== '') hits.push({ key: k, value: v, line: i + 1 });
      continue;
    }
    if (rest.startsWith('{')) {
      for (const [, v] of flowPairs(rest, new Set([...keys, 'command']), limit - hits.length)) if (v !== '') hits.push({ key, value: v, line: i + 1 });
      continue;
    }
    if (rest === '' || rest.startsWith('#')) {
      // A sequence (or a nested mapping, whose own keys are found on their lines) below the key.
      let index = 0;
      let seqIndent = -1;
      for (let j = i + 1; lines.has(j); j++) {
        const n = lines.at(j);
        if (n.text === '' || n.text.startsWith('#')) continue;
        const dash = /^-(?:[ \t]|$)/.test(n.text);
        if (n.indent < col || (n.indent === col && !dash)) break;
        if (!dash) continue; // inside an item
        if (seqIndent === -1) seqIndent = n.indent;
        if (n.indent < seqIndent) break;
        if (n.indent > seqIndent) continue; // a nested sequence's item: scanned as a line of its own
        const item = n.text.replace(/^-[ \t]*/, '');
        if (KEY_RE.test(item) || item.startsWith('{')) continue; // a mapping item: its keys are scanned on their own
        const r = readScalar(lines, j, item, n.indent);
        if (r.value !== null && r.value !== '') hits.push({ key, value: r.value, line: j + 1, index });
        for (const v of r.list ?? []) hits.push({ key, value: v, line: j + 1, index });
        index++;
        consume(j, r.end);
        j = r.end;
      }
      continue;
    }
    const r = readScalar(lines, i, rest, col);
    if (r.value !== null && r.value !== '') hits.push({ key, value: r.value, line: i + 1 });
    r.list?.forEach((v, index) => hits.push({ key, value: v, line: i + 1, index }));
    consume(i, r.end);
  }
  return hits;
}

/**
 * `NAME: value` pairs anywhere whose value holds a CI expression (`${{ … }}`): the line scan's stand-in for
 * `env:` scopes it cannot see, so a fragment that maps a secret into a variable is still understood.
 */
export function scanExpressionAssignments(text: string): Map<string, string> {
  const out = new Map<string, string>();
  // Only lines holding `${{` are looked at (found by indexOf: most lines have none).
  for (let i = text.indexOf('${{'); i !== -1; ) {
    const start = text.lastIndexOf('\n', i) + 1;
    let end = text.indexOf('\n', i);
    if (end === -1) end = text.length;
    const m = /^[ \t]*(?:-[ \t]+)?["']?([A-Za-z_][A-Za-z0-9_]*)["']?[ \t]*:[ \t]*(.*)$/.exec(text.slice(start, end));
    if (m) out.set(m[1]!, m[2]!);
    i = text.indexOf('${{', end);
  }
  return out;
}
