// Makefile: the recipe lines make hands to the shell, one shell per logical line (backslash-continued lines
// joined), and the shell that make itself runs while READING the file: `$(shell …)` anywhere and `VAR != cmd`
// assignments run on every `make` invocation, whatever the target. Make's own syntax is undone the way make
// undoes it: `@ - +` prefixes, `$$` -> `$`, `$(VAR)` with the file's simple assignments, `$@` -> the target.

import type { Collector } from './util.ts';

const ASSIGN = /^(?:(?:override|export|private)\s+)*([A-Za-z_.][\w.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$/;

/** Logical lines: a trailing backslash joins the next line (kept as `\`+newline for recipes: the shell joins them). */
function logicalLines(text: string): Array<{ text: string; line: number }> {
  const raw = text.split('\n');
  const out: Array<{ text: string; line: number }> = [];
  for (let i = 0; i < raw.length; i++) {
    const start = i;
    let t = raw[i]!;
    const recipe = t.startsWith('\t');
    while (t.endsWith('\\') && /(?:^|[^\\])(?:\\\\)*\\$/.test(t) && i + 1 < raw.length) {
      i++;
      // In a recipe make keeps backslash-newline for the shell and drops the next line's leading tab.
      t = recipe ? t + '\n' + raw[i]!.replace(/^\t/, '') : t.slice(0, -1).trimEnd() + ' ' + raw[i]!.trimStart();
    }
    out.push({ text: t, line: start + 1 });
  }
  return out;
}

interface Vars {
  map: Map<string, string>;
  /** Expansions left: `A = $(B)$(B)…` nested ten deep must not take exponential time. */
  budget: number;
}

/** The index after the `)`/`}` matching the opener at `open` (make references nest). */
function closeOf(s: string, open: number): number {
  const o = s[open]!;
  const c = o === '(' ? ')' : '}';
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === o) depth++;
    else if (s[i] === c && --depth === 0) return i + 1;
  }
  return s.length;
}

/**
 * Make's expansion of a recipe line (`shells` receives each `$(shell …)` met). Unknown variables become shell
 * variable references: make passes the environment in, so their value is not known here.
 */
function expand(s: string, vars: Vars, target: { name: string; prereqs: string[] }, depth: number, shells: string[]): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '$') {
      out += c;
      continue;
    }
    const n = s[i + 1];
    if (n === undefined) break;
    if (n === '$') {
      out += '$';
      i++;
      continue;
    }
    if (n === '(' || n === '{') {
      const end = closeOf(s, i + 1);
      const inner = s.slice(i + 2, end - 1);
      i = end - 1;
      const fn = /^([a-z-]+)[ \t]+([\s\S]*)$/.exec(inner);
      if (fn && fn[1] === 'shell') {
        const cmd = expand(fn[2]!, vars, target, depth + 1, shells);
        shells.push(cmd);
        out += '$MAKE_SHELL_OUTPUT';
        continue;
      }
      if (fn) {
        // Another make function ($(wildcard …), $(call …)): its result is not computed here; its arguments
        // are still expanded so a $(shell …) inside is found.
        expand(fn[2]!, vars, target, depth + 1, shells);
        out += '$MAKE_' + fn[1]!.toUpperCase().replace(/-/g, '_');
        continue;
      }
      const name = inner.trim();
      if (name === 'MAKE') out += 'make';
      else if (vars.map.has(name) && depth < 10 && --vars.budget > 0 && out.length < 65536) out += expand(vars.map.get(name)!, vars, target, depth + 1, shells);
      else out += /^[A-Za-z_]\w*$/.test(name) ? '${' + name + '}' : '$MAKE_VAR';
      continue;
    }
    i++;
    switch (n) {
      case '@': out += target.name.split(' ')[0]!; break;
      case '<': out += target.prereqs[0] ?? '$MAKE_PREREQ'; break;
      case '^': case '+': case '?': out += target.prereqs.length ? target.prereqs.join(' ') : '$MAKE_PREREQS'; break;
      case '*': out += '$MAKE_STEM'; break;
      default: out += vars.map.has(n) && depth < 10 && --vars.budget > 0 ? expand(vars.map.get(n)!, vars, target, depth + 1, shells) : '$' + n;
    }
  }
  return out;
}

export function extractMakefile(text: string, out: Collector): void {
  const lines = logicalLines(text);
  const vars: Vars = { map: new Map(), budget: 20000 };
  // First pass: the simple assignments (make reads the whole file before it runs any recipe).
  for (const l of lines) {
    if (l.text.startsWith('\t')) continue;
    const m = ASSIGN.exec(l.text.trim());
    if (!m || m[2] === '!=') continue;
    const value = m[3]!.replace(/\s+#.*$/, '');
    vars.map.set(m[1]!, m[2] === '+=' && vars.map.has(m[1]!) ? `${vars.map.get(m[1]!)} ${value}` : m[2] === '?=' && vars.map.has(m[1]!) ? vars.map.get(m[1]!)! : value);
  }
  // make runs every recipe line through $(SHELL): one that is not a standard shell runs instead of it.
  const sh = vars.map.get('SHELL');
  if (sh !== undefined && !/^(?:\/usr)?\/bin\/(?:ba|da|z|k)?sh$|^(?:ba|da|z|k)?sh$|^\/usr\/bin\/env (?:ba|z)?sh$/.test(sh.trim())) {
    out.command(sh.trim() + ' ' + (vars.map.get('.SHELLFLAGS') ?? '-c').trim() + " 'recipe'", `SHELL = ${sh.trim()} (every recipe line runs through it)`);
  }
  // .RECIPEPREFIX = > makes '>' (not a tab) start a recipe line.
  const prefix = (vars.map.get('.RECIPEPREFIX') ?? '').trim()[0] ?? '\t';
  let target: { name: string; prereqs: string[]; line: number } | null = null;
  // One $(shell …) is reported once, at its first place (a variable that holds one is expanded at each use).
  const shell = (cmd: string, where: string): void => {
    if (out.reported.has(`make-shell:${cmd}`)) return;
    out.reported.add(`make-shell:${cmd}`);
    out.command(cmd, where);
  };
  let inDefine: string | null = null;
  const parseShells = (s: string, line: number, noTarget = { name: '', prereqs: [] as string[] }): void => {
    if (!s.includes('$(shell') && !s.includes('${shell')) return;
    const shells: string[] = [];
    expand(s, vars, noTarget, 0, shells);
    for (const c of shells) shell(c, `$(shell …) on line ${line} (runs whenever make reads the file)`);
  };
  const recipe = (body: string, line: number): void => {
    let t = body.startsWith(prefix) ? body.slice(1) : body;
    t = t.replace(/^[\t ]*/, '');
    while (/^[@+-]/.test(t)) t = t.slice(1).trimStart();
    const tg = target ?? { name: '?', prereqs: [], line };
    const shells: string[] = [];
    const expanded = expand(t, vars, tg, 0, shells);
    for (const c of shells) shell(c, `$(shell …) in target ${tg.name}, line ${line}`);
    out.command(expanded, inDefine !== null ? `define ${inDefine}, line ${line}` : target ? `target ${tg.name}, line ${line}` : `recipe line ${line} (no target before it: a fragment)`);
  };
  for (const l of lines) {
    if (out.full) return;
    const t = l.text;
    if (inDefine !== null) {
      if (/^\s*endef\b/.test(t)) {
        inDefine = null;
        continue;
      }
      // A define body becomes recipes or makefile text through $(eval)/$(call): read its lines as commands.
      recipe(t, l.line);
      continue;
    }
    if (t.startsWith('\t') || t.startsWith(prefix)) {
      if (t.trim() === '' || t.trim() === prefix) continue;
      if (!target) out.partial = true;
      recipe(t, l.line);
      continue;
    }
    const trimmed = t.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const def = /^(?:(?:override|export)\s+)*define\s+([^\s=:]+)/.exec(trimmed);
    if (def) {
      inDefine = def[1]!;
      continue;
    }
    const asg = ASSIGN.exec(trimmed);
    if (asg) {
      if (asg[2] === '!=') {
        const shells: string[] = [];
        const cmd = expand(asg[3]!, vars, { name: '', prereqs: [] }, 0, shells);
        for (const c of shells) shell(c, `$(shell …) on line ${l.line} (runs whenever make reads the file)`);
        out.command(cmd, `${asg[1]} != … on line ${l.line} (runs whenever make reads the file)`);
      } else parseShells(trimmed, l.line);
      continue;
    }
    // A rule line: `targets: prereqs` or `targets: prereqs ; recipe` (not `:=`, handled above).
    const rule = /^([^:#=]+?)\s*::?(?!=)\s*([^;#]*?)\s*(?:;(.*))?$/.exec(trimmed);
    if (rule && !/^(?:ifn?eq|ifn?def|else|endif|include|-include|sinclude|vpath|unexport)\b/.test(trimmed)) {
      const names = rule[1]!.trim().split(/\s+/);
      target = { name: names.join(' '), prereqs: rule[2]!.split(/\s+/).filter((x) => x !== ''), line: l.line };
      parseShells(rule[1]! + ' ' + rule[2]!, l.line);
      if (rule[3] !== undefined && rule[3].trim() !== '') recipe(rule[3], l.line);
      continue;
    }
    parseShells(trimmed, l.line);
  }
}
