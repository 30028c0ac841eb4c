// setup.py runs as Python on `pip install` of a source package. This is a simple scan, not an analysis:
// string literals (or lists of them) given directly to os.system / os.popen / subprocess.* / os.exec* /
// os.spawn* become command lines. A tokenizer-based Python analyzer (imports, network, eval, file effects) is
// being built in content/ by another change and will be wired here later; until then the file reports
// interpreter 'python' so the policy side knows most of it was not read.

import { argvLine, LineIndex, type Collector } from './util.ts';

const CALL = /\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?)|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|(?:^|[^.\w])(?:system|popen|check_call|check_output|Popen|getoutput))\s*\(\s*/gm;

const STRING = /(?:[rRbBuUfF]{0,2})("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/y;

function literal(q: string): string {
  const body = q.startsWith('"""') || q.startsWith("'''") ? q.slice(3, -3) : q.slice(1, -1);
  return body
    .replace(/\\(n|t|\\|'|"|\n)/g, (_, c: string) => ({ n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"', '\n': '' } as Record<string, string>)[c]!)
    .replace(/\{[^{}]*\}/g, '$PY_EXPR');
}

/** String literals joined by implicit concatenation or `+`, starting at `pos`. */
function strings(src: string, pos: number): { v: string; end: number } | null {
  let v = '';
  let p = pos;
  let any = false;
  for (;;) {
    STRING.lastIndex = p;
    const m = STRING.exec(src);
    if (!m) break;
    v += literal(m[1]!);
    any = true;
    p = STRING.lastIndex;
    const plus = /^\s*\+?\s*/.exec(src.slice(p, p + 200))!;
    const next = src.slice(p + plus[0].length, p + plus[0].length + 4);
    if (!/^[rRbBuUfF]{0,2}['"]/.test(next)) break;
    p += plus[0].length;
  }
  return any ? { v, end: p } : null;
}

export function extractSetupPy(text: string, out: Collector): void {
  out.interpreter = 'python';
  const idx = new LineIndex(text);
  for (const m of text.matchAll(CALL)) {
    if (out.full) return;
    const at = m.index + m[0].length;
    const where = `${m[0].replace(/\s*\(\s*$/, '').replace(/^[^\w]/, '')}(…), line ${idx.lineOf(m.index)}`;
    const s = strings(text, at);
    if (s) {
      out.command(s.v, where);
      continue;
    }
    if (text[at] === '[' || text[at] === '(') {
      // An argv list of literals: ["curl", "-o", "x", url] (a non-literal item becomes a placeholder).
      const close = text.indexOf(text[at] === '[' ? ']' : ')', at);
      const inner = close === -1 ? '' : text.slice(at + 1, close);
      const argv: string[] = [];
      for (const part of inner.split(',')) {
        const p = part.trim();
        if (p === '') continue;
        const lit = strings(p, 0);
        argv.push(lit && lit.end === p.length ? lit.v : '$PY_EXPR');
      }
      if (argv.length > 0) out.command(argvLine(argv).replace(/'\$PY_EXPR'/g, '$PY_EXPR'), where);
    }
  }
}
