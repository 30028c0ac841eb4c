// A small TOML reader for client configuration files (Codex's ~/.codex/config.toml lists MCP servers as
// `[mcp_servers.NAME]` tables). It reads TOML 1.0's tables, arrays of tables, dotted and quoted keys,
// all four string forms, arrays, inline tables, booleans and numbers; dates are kept as their text.
// Safe on hostile input: tables have no prototype, nesting is bounded, and an error names its line.

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable { [key: string]: TomlValue }

export class TomlError extends Error {
  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`);
    this.name = 'TomlError';
  }
}

const MAX_DEPTH = 64;

export function parseToml(text: string): TomlTable {
  return new Reader(text.replace(/^\uFEFF/, '')).document();
}

function table(): TomlTable {
  return Object.create(null) as TomlTable;
}

function isTable(v: TomlValue | undefined): v is TomlTable {
  return v !== undefined && typeof v === 'object' && !Array.isArray(v);
}

class Reader {
  private i = 0;

  constructor(private readonly s: string) {}

  private fail(message: string): never {
    let line = 1;
    for (let k = 0; k < this.i && k < this.s.length; k++) if (this.s.charCodeAt(k) === 10) line++;
    throw new TomlError(message, line);
  }

  private peek(n = 0): string {
    return this.s[this.i + n] ?? '';
  }

  private startsWith(t: string): boolean {
    return this.s.startsWith(t, this.i);
  }

  /** Spaces and tabs. */
  private blanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }

  private comment(): void {
    if (this.peek() !== '#') return;
    while (this.i < this.s.length && this.peek() !== '\n') this.i++;
  }

  /** Blanks, comments and newlines (between array items, and between statements). */
  private gaps(): void {
    for (;;) {
      this.blanks();
      this.comment();
      if (this.peek() === '\n') this.i++;
      else if (this.startsWith('\r\n')) this.i += 2;
      else return;
    }
  }

  private endOfLine(): void {
    this.blanks();
    this.comment();
    if (this.i >= this.s.length) return;
    if (this.peek() === '\n') {
      this.i++;
      return;
    }
    if (this.startsWith('\r\n')) {
      this.i += 2;
      return;
    }
    this.fail(`unexpected ${JSON.stringify(this.peek())} after a value`);
  }

  document(): TomlTable {
    const root = table();
    let current = root;
    for (;;) {
      this.gaps();
      if (this.i >= this.s.length) return root;
      if (this.startsWith('[[')) {
        this.i += 2;
        const path = this.key();
        this.blanks();
        if (!this.startsWith(']]')) this.fail('expected ]] after an array-of-tables name');
        this.i += 2;
        const parent = this.walk(root, path.slice(0, -1));
        const last = path[path.length - 1]!;
        const existing = parent[last];
        const arr = existing === undefined ? (parent[last] = []) : existing;
        if (!Array.isArray(arr)) this.fail(`${path.join('.')} is not an array of tables`);
        current = table();
        (arr as TomlValue[]).push(current);
      } else if (this.peek() === '[') {
        this.i++;
        const path = this.key();
        this.blanks();
        if (this.peek() !== ']') this.fail('expected ] after a table name');
        this.i++;
        current = this.walk(root, path);
      } else {
        const path = this.key();
        this.blanks();
        if (this.peek() !== '=') this.fail('expected = after a key');
        this.i++;
        this.blanks();
        const value = this.value(0);
        const parent = this.walk(current, path.slice(0, -1));
        const last = path[path.length - 1]!;
        if (last in parent) this.fail(`${path.join('.')} is defined twice`);
        parent[last] = value;
      }
      this.endOfLine();
    }
  }

  /** The table at `path` under `from`, creating missing ones; the last element of an array of tables. */
  private walk(from: TomlTable, path: string[]): TomlTable {
    let t = from;
    for (const k of path) {
      let next = t[k];
      if (next === undefined) next = t[k] = table();
      if (Array.isArray(next)) next = next[next.length - 1];
      if (!isTable(next)) this.fail(`${k} is not a table`);
      t = next;
    }
    return t;
  }

  /** A dotted key: bare, "basic" or 'literal' parts. */
  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.blanks();
      const c = this.peek();
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.i;
        while (/[A-Za-z0-9_-]/.test(this.peek())) this.i++;
        if (this.i === start) this.fail(`expected a key, found ${c === '' ? 'the end of the file' : JSON.stringify(c)}`);
        parts.push(this.s.slice(start, this.i));
      }
      this.blanks();
      if (this.peek() !== '.') return parts;
      this.i++;
    }
  }

  private value(depth: number): TomlValue {
    if (depth > MAX_DEPTH) this.fail(`values nest deeper than ${MAX_DEPTH} levels`);
    if (this.startsWith('"""')) return this.multilineBasic();
    if (this.startsWith("'''")) return this.multilineLiteral();
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array(depth);
    if (c === '{') return this.inlineTable(depth);
    return this.scalar();
  }

  private array(depth: number): TomlValue[] {
    this.i++;
    const out: TomlValue[] = [];
    for (;;) {
      this.gaps();
      if (this.peek() === ']') {
        this.i++;
        return out;
      }
      out.push(this.value(depth + 1));
      this.gaps();
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ']') this.fail('expected , or ] in an array');
    }
  }

  private inlineTable(depth: number): TomlTable {
    this.i++;
    const t = table();
    this.blanks();
    if (this.peek() === '}') {
      this.i++;
      return t;
    }
    for (;;) {
      const path = this.key();
      this.blanks();
      if (this.peek() !== '=') this.fail('expected = in an inline table');
      this.i++;
      this.blanks();
      const v = this.value(depth + 1);
      const parent = this.walk(t, path.slice(0, -1));
      parent[path[path.length - 1]!] = v;
      this.blanks();
      if (this.peek() === ',') {
        this.i++;
        continue;
      }
      if (this.peek() === '}') {
        this.i++;
        return t;
      }
      this.fail('expected , or } in an inline table');
    }
  }

  private scalar(): TomlValue {
    const start = this.i;
    while (this.i < this.s.length && !/[\s,\]}#]/.test(this.peek())) this.i++;
    // A date-time may have one space between date and time.
    if (/^\d{4}-\d{2}-\d{2}$/.test(this.s.slice(start, this.i)) && this.peek() === ' ' && /\d/.test(this.peek(1))) {
      this.i++;
      while (this.i < this.s.length && !/[\s,\]}#]/.test(this.peek())) this.i++;
    }
    const word = this.s.slice(start, this.i);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === '') this.fail('expected a value');
    if (/^[+-]?(?:inf|nan)$/.test(word)) return word.includes('nan') ? NaN : word.startsWith('-') ? -Infinity : Infinity;
    if (/^0x[0-9A-Fa-f_]+$|^0o[0-7_]+$|^0b[01_]+$/.test(word)) return Number(word.replace(/_/g, ''));
    if (/^[+-]?\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d[\d_]*)?$/.test(word)) return Number(word.replace(/_/g, ''));
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(word)) return word;
    return this.fail(`unexpected value ${JSON.stringify(word.slice(0, 40))}`);
  }

  private basicString(): string {
    this.i++;
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') this.fail('unterminated string');
      this.i++;
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private escape(): string {
    const c = this.peek();
    this.i++;
    switch (c) {
      case 'b': return '\b';
      case 't': return '\t';
      case 'n': return '\n';
      case 'f': return '\f';
      case 'r': return '\r';
      case 'e': return '\x1b';
      case '"': return '"';
      case '\\': return '\\';
      case 'u':
      case 'U': {
        const len = c === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i, this.i + len);
        if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex)) this.fail('bad unicode escape');
        this.i += len;
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail('bad unicode escape');
        return String.fromCodePoint(cp);
      }
      default:
        return this.fail(`bad escape \\${c}`);
    }
  }

  private literalString(): string {
    this.i++;
    const end = this.s.indexOf("'", this.i);
    const nl = this.s.indexOf('\n', this.i);
    if (end < 0 || (nl >= 0 && nl < end)) this.fail('unterminated string');
    const out = this.s.slice(this.i, end);
    this.i = end + 1;
    return out;
  }

  private multilineBasic(): string {
    this.i += 3;
    if (this.peek() === '\n') this.i++;
    else if (this.startsWith('\r\n')) this.i += 2;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('unterminated multi-line string');
      if (this.startsWith('"""')) {
        // Up to two quotes may close the content right before the delimiter.
        let extra = 0;
        while (extra < 2 && this.s[this.i + 3 + extra] === '"') extra++;
        out += '"'.repeat(extra);
        this.i += 3 + extra;
        return out;
      }
      const c = this.peek();
      this.i++;
      if (c !== '\\') {
        out += c;
        continue;
      }
      // A backslash at the end of a line trims the newline and the whitespace after it.
      const rest = /^[ \t]*\r?\n/.exec(this.s.slice(this.i, this.i + 256));
      if (rest) {
        this.i += rest[0].length;
        while (/\s/.test(this.peek())) this.i++;
        continue;
      }
      out += this.escape();
    }
  }

  private multilineLiteral(): string {
    this.i += 3;
    if (this.peek() === '\n') this.i++;
    else if (this.startsWith('\r\n')) this.i += 2;
    const end = this.s.indexOf("'''", this.i);
    if (end < 0) this.fail('unterminated multi-line string');
    let stop = end;
    while (stop + 3 < this.s.length && this.s[stop + 3] === "'" && stop - end < 2) stop++;
    const out = this.s.slice(this.i, stop);
    this.i = stop + 3;
    return out;
  }
}
