// Command-bearing keys of YAML files (CI pipelines, lefthook, pre-commit), collected ANYWHERE in the tree, not
// only at the canonical path: an agent appends fragments (`- run: …` under some job) and a file of one CI
// system may be read by another. Small files are parsed with `yaml` (structure: env scopes, step order,
// shells); large ones, and ones the parser refuses, are read by the line scan and reported partial.

import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { triggerNames, type RunSite, type Step } from './github-signals.ts';
import { MAX_COMMANDS } from './util.ts';
import { scanExpressionAssignments, scanYamlLines } from './yaml-scan.ts';

/**
 * Above this size the parser is not used: `yaml` takes ~1 s per MB (measured: 0.9-1.5 s for a 1 MB workflow,
 * 12-50 ms for 20 KB, on the shared 2-core machine), while a decision has a few ms. Real CI files are a few KB.
 */
export const YAML_PARSE_LIMIT = 24 * 1024;

export interface YamlOptions {
  keys: ReadonlySet<string>;
  /** GitHub Actions: env scopes, step shells, github-script, step order for checkout signals. */
  github?: boolean;
  /** pre-commit: `entry` takes its sibling `args`, and pygrep/fail hooks are not commands. */
  preCommit?: boolean;
  /** Azure: PowerShell@ tasks' inline scripts are PowerShell. */
  azure?: boolean;
}

export interface YamlResult {
  sites: RunSite[];
  /** Step lists in file order (GitHub), for checkout signals; and the workflow's trigger (null: not seen). */
  stepLists: Step[][];
  trigger: string[] | null;
  partial: boolean;
}

const PARSE_OPTIONS = {
  merge: true,
  maxAliasCount: 100,
  prettyErrors: false,
  // GitLab's `!reference [job, script]` names another job's script (already collected where it is defined).
  customTags: [{ tag: '!reference', collection: 'seq' as const, resolve: (s: unknown) => s }],
};

function keyOf(n: unknown): string | null {
  return isScalar(n) ? String(n.value) : null;
}

function scalarText(n: unknown): string | null {
  if (!isScalar(n) || n.value === null || n.value === undefined) return null;
  const v = n.value;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v); // !!binary: the bytes are the text
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}

function get(map: unknown, key: string): unknown {
  if (!isMap(map)) return undefined;
  for (const p of map.items) if (keyOf(p.key) === key) return p.value;
  return undefined;
}

interface Ctx {
  env: Map<string, string>;
  shell?: string;
}

function shellName(s: string): string | undefined {
  const first = s.trim().split(/\s+/)[0] ?? '';
  const b = first.slice(first.lastIndexOf('/') + 1);
  if (b === '' || b === 'bash' || b === 'sh') return undefined;
  return b;
}

class Walker {
  readonly sites: RunSite[] = [];
  readonly stepLists: Step[][] = [];
  constructor(private readonly o: YamlOptions) {}

  walk(node: unknown, path: string, ctx: Ctx, depth: number): void {
    if (depth > 200 || node === null || node === undefined || isAlias(node)) return;
    if ((node as Node).tag === '!reference') return;
    if (isMap(node)) {
      let c = ctx;
      const env = get(node, 'env');
      if (isMap(env)) {
        const e = new Map(ctx.env);
        for (const p of env.items) {
          const k = keyOf(p.key);
          const v = scalarText(p.value);
          if (k !== null && v !== null) e.set(k, v);
        }
        c = { ...c, env: e };
      }
      if (this.o.github) {
        const def = scalarText(get(get(get(node, 'defaults'), 'run'), 'shell'));
        const sh = scalarText(get(node, 'shell'));
        if (def !== null) c = { ...c, shell: shellName(def) };
        if (sh !== null && get(node, 'run') !== undefined) c = { ...c, shell: shellName(sh) };
        const uses = scalarText(get(node, 'uses'));
        const script = get(get(node, 'with'), 'script');
        if (uses && /github-script/.test(uses) && scalarText(script) !== null) {
          this.sites.push({ where: `${path}.with.script`, text: scalarText(script)!, env: c.env, js: true });
        }
      }
      if (this.o.azure) {
        const task = scalarText(get(node, 'task'));
        if (task && /^(?:Azure)?PowerShell@/i.test(task)) c = { ...c, shell: 'powershell' };
      }
      for (const p of node.items) {
        const k = keyOf(p.key);
        if (k === null) continue;
        const where = path === '' ? k : `${path}.${k}`;
        // Variables are values, not commands: a GitLab variable or a GitHub env entry named `script`/`run`.
        if (k === 'variables' || k === 'env') continue;
        if (this.o.keys.has(k)) this.emit(p.value, where, k, c, node);
        this.walk(p.value, where, c, depth + 1);
      }
      return;
    }
    if (isSeq(node)) {
      if (this.o.github) this.stepList(node.items, path);
      node.items.forEach((it, i) => this.walk(it, `${path}[${i}]`, ctx, depth + 1));
    }
  }

  private emit(value: unknown, where: string, key: string, ctx: Ctx, parent: unknown): void {
    const s = scalarText(value);
    if (s !== null) {
      if (this.o.preCommit && key === 'entry') {
        const lang = scalarText(get(parent, 'language'));
        if (lang === 'pygrep' || lang === 'fail') return; // a regex / a message, not a command
        const args = get(parent, 'args');
        const extra = isSeq(args) ? args.items.map((a) => scalarText(a)).filter((a): a is string => a !== null) : [];
        this.sites.push({ where, text: [s, ...extra.map(quoteArg)].join(' '), env: ctx.env, ...(ctx.shell ? { shell: ctx.shell } : {}) });
        return;
      }
      this.sites.push({ where, text: s, env: ctx.env, ...(ctx.shell ? { shell: ctx.shell } : {}) });
      return;
    }
    if (isSeq(value) && (value as Node).tag !== '!reference') {
      // GitLab flattens nested lists of script lines; mappings in a list (a Bitbucket pipe) are walked as usual.
      value.items.forEach((it, i) => {
        if (isSeq(it)) this.emit(it, `${where}[${i}]`, key, ctx, parent);
        else {
          const t = scalarText(it);
          if (t !== null) this.sites.push({ where: `${where}[${i}]`, text: t, env: ctx.env, ...(ctx.shell ? { shell: ctx.shell } : {}) });
        }
      });
      return;
    }
    if (isMap(value)) {
      // CircleCI `run: {command: …, shell: …}`.
      const cmd = scalarText(get(value, 'command'));
      const sh = scalarText(get(value, 'shell'));
      const shell = sh !== null ? shellName(sh) : ctx.shell;
      if (cmd !== null) this.sites.push({ where: `${where}.command`, text: cmd, env: ctx.env, ...(shell ? { shell } : {}) });
    }
  }

  private stepList(items: readonly unknown[], path: string): void {
    const steps: Step[] = [];
    items.forEach((it, i) => {
      if (!isMap(it)) return;
      const uses = scalarText(get(it, 'uses')) ?? undefined;
      const run = get(it, 'run') !== undefined;
      if (!uses && !run) return;
      const text = scalarText(get(it, 'run')) ?? undefined;
      const w = get(it, 'with');
      const ref = [scalarText(get(w, 'ref')), scalarText(get(w, 'repository'))].filter((x) => x !== null).join(' ');
      steps.push({ where: `${path}[${i}]`, ...(uses ? { uses } : {}), run, ...(ref ? { ref } : {}), ...(text !== undefined ? { text } : {}) });
    });
    if (steps.length > 0) this.stepLists.push(steps);
  }
}

function quoteArg(a: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** Reads the command-bearing keys of a YAML text. Never throws. */
export function yamlCommands(text: string, o: YamlOptions): YamlResult {
  if (text.length <= YAML_PARSE_LIMIT) {
    let doc: Document | null = null;
    try {
      doc = parseDocument(text, PARSE_OPTIONS);
    } catch {
      doc = null;
    }
    if (doc && doc.errors.length === 0) {
      const w = new Walker(o);
      try {
        w.walk(doc.contents, '', { env: new Map() }, 0);
        let trigger: string[] | null = null;
        if (o.github && isMap(doc.contents)) {
          const on = get(doc.contents, 'on') ?? get(doc.contents, 'true');
          if (on !== undefined) trigger = triggerNames((on as Node).toJSON?.() ?? null);
        }
        return { sites: w.sites, stepLists: w.stepLists, trigger, partial: false };
      } catch {
        // fall through to the line scan
      }
    }
  }
  return lineScan(text, o);
}

/** The line scan's reading: every hit a site, every `NAME: ${{ … }}` line an env entry in scope everywhere. */
function lineScan(text: string, o: YamlOptions): YamlResult {
  const keys = new Set(o.keys);
  if (o.keys.has('run')) keys.add('command'); // CircleCI run: {command} written as a block mapping
  const env = o.github ? scanExpressionAssignments(text) : new Map<string, string>();
  const sites: RunSite[] = [];
  // Past the command cap the file is partial anyway: the scan stops there (a 1 MB file stays within a few ms).
  for (const h of scanYamlLines(text, keys, MAX_COMMANDS + 1)) {
    // A `command:` is kept wherever it is (the scan cannot see that it sits under a CircleCI `run:`): a
    // false command costs a look, a missed one a bypass.
    const where = `line ${h.line}: ${h.key}${h.index !== undefined ? `[${h.index}]` : ''}`;
    sites.push({ where, text: h.value, env });
  }
  let trigger: string[] | null = null;
  if (o.github) {
    const on = /^["']?on["']?[ \t]*:(.*)$/m.exec(text);
    if (on) trigger = [...(on[1] ?? '').matchAll(/[A-Za-z_]+/g)].map((m) => m[0]);
    // A multi-line `on:` mapping: the event names are the keys on the following more-indented lines.
    if (/\bpull_request_target\b/.test(text)) (trigger ??= []).push('pull_request_target');
    if (/^[ \t]*workflow_run[ \t]*:/m.test(text)) (trigger ??= []).push('workflow_run');
  }
  const stepLists: Step[][] = [];
  if (o.github) {
    // Steps by lines: a checkout's `ref:` and later `run:` / `uses: ./` lines, in file order.
    const steps: Step[] = [];
    let last: Step | null = null;
    let line = 1;
    let pos = 0;
    for (const m of text.matchAll(/^[ \t]*(?:-[ \t]+)?(uses|ref|repository|run)[ \t]*:[ \t]*(.*)$/gm)) {
      for (let k = text.indexOf('\n', pos); k !== -1 && k < m.index; k = text.indexOf('\n', k + 1)) line++;
      pos = m.index;
      if (steps.length > MAX_COMMANDS) break;
      const value = m[2]!.trim();
      if (m[1] === 'uses') {
        last = { where: `line ${line}`, uses: value.replace(/^["']|["']?\s*(?:#.*)?$/g, '') };
        steps.push(last);
      } else if (m[1] === 'run') {
        last = null;
        steps.push({ where: `line ${line}`, run: true, ...(value && !/^[|>]/.test(value) ? { text: value } : {}) });
      } else if (last) last.ref = `${last.ref ?? ''} ${value}`.trim();
    }
    stepLists.push(steps);
  }
  return { sites, stepLists, trigger, partial: true };
}

