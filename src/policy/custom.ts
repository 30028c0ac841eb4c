// Custom rules from policy files: compiles each `custom:` entry into ShellRule/ToolRule objects and
// checks its own examples against it at load, so a rule that cannot fire is an error, not a surprise.

import { basename, isAbsolute, join, resolve } from 'node:path';
import picomatch from 'picomatch';
import type { Tier, ToolCall } from '../core/types.ts';
import { AsimovError } from '../core/errors.ts';
import type { ErrorLocation } from '../core/errors.ts';
import type { SimpleCommand, Word } from '../shell/types.ts';
import type { Rule, RuleContext, RuleExample, RuleResult, ShellRule, ToolRule } from './rule.ts';
import type { CustomRuleDef, KeyPath, MatchDef } from './schema.ts';
import { TOOL_KINDS } from './schema.ts';

/**
 * Runs one example through the real classification machinery and says whether `rule` matched it.
 * Injected because the shell parser and the classifier live above this module.
 */
export type ExampleRunner = (example: RuleExample, rule: Rule) => boolean;

/** A custom rule ready for layering: one id, one or two rule objects (shell side, tool side). */
export interface CompiledCustomRule {
  id: string;
  tier: Tier;
  reason: string;
  /**
   * The rule objects, sharing `id`: a ShellRule when the matchers apply to shell commands, a ToolRule
   * when they apply to other tool calls (a `path`-only rule is both).
   */
  rules: Rule[];
  /** `overrides` as written (ids or globs); only for tier allow. */
  overrides: readonly string[];
  def: CustomRuleDef;
  /** The policy file it came from, and its index in that file's `custom:` list. */
  source: string;
  index: number;
}

type Locate = (path: KeyPath, at?: 'key' | 'value') => ErrorLocation;

/** Compiles one validated `custom:` entry. Throws a located error when no side could ever match. */
export function compileCustomRule(def: CustomRuleDef, source: string, index: number, locate: Locate): CompiledCustomRule {
  const m = def.match;
  const shellSide = m.tool === undefined && (m.tools === undefined || m.tools.includes('shell'));
  const toolSide = m.command === undefined && m.pattern === undefined && (m.tools === undefined || m.tools.some((t) => t !== 'shell'));
  if (!shellSide && !toolSide) {
    throw new AsimovError(
      'policy_schema_error',
      `custom rule "${def.id}" can never match: \`tool\` names a client tool but \`tools\` allows only the shell`,
      locate(['custom', index, 'match']),
    );
  }
  const strings = (xs: RuleExample[] | undefined) => (xs ?? []).filter((x): x is string => typeof x === 'string');
  const objects = (xs: RuleExample[] | undefined) => (xs ?? []).filter((x) => typeof x !== 'string');
  const base = { id: def.id, tier: def.tier, reason: def.reason };
  const rules: Rule[] = [];
  if (shellSide) {
    rules.push(
      compileShellSide(m, {
        ...base,
        examples: { match: strings(def.examples.match), notMatch: strings(def.examples.notMatch) },
      }),
    );
  }
  if (toolSide) {
    rules.push(
      compileToolSide(m, {
        ...base,
        examples: { match: objects(def.examples.match), notMatch: objects(def.examples.notMatch) },
      }),
    );
  }
  return { id: def.id, tier: def.tier, reason: def.reason, rules, overrides: def.overrides ?? [], def, source, index };
}

/**
 * Runs the rule's examples (`notMatch` first, as Codex execpolicy does) and throws
 * `policy_example_failed` naming the example and its line when one disagrees with the rule.
 */
export function checkCustomExamples(c: CompiledCustomRule, runner: ExampleRunner, locate: Locate): void {
  const lists: ['notMatch' | 'match', RuleExample[]][] = [
    ['notMatch', c.def.examples.notMatch ?? []],
    ['match', c.def.examples.match],
  ];
  for (const [kind, examples] of lists) {
    examples.forEach((ex, i) => {
      const loc = locate(['custom', c.index, 'examples', kind, i]);
      const variant = c.rules.find((r) => (typeof ex === 'string' ? r.kind === 'shell' : r.kind === 'tool'));
      let matched = false;
      if (variant) {
        try {
          matched = runner(ex, variant) === true;
        } catch (e) {
          throw new AsimovError(
            'policy_example_failed',
            `custom rule "${c.id}": the ${kind} example ${describeExample(ex)} could not be run: ${(e as Error).message ?? String(e)}`,
            loc,
            { cause: e },
          );
        }
      }
      if (kind === 'match' && !matched) {
        const why = variant
          ? 'fix the rule\'s `match` or the example'
          : `the rule only matches ${typeof ex === 'string' ? 'non-shell tool calls' : 'shell commands'}`;
        throw new AsimovError('policy_example_failed', `custom rule "${c.id}": the match example ${describeExample(ex)} does not trigger it; ${why}`, loc);
      }
      if (kind === 'notMatch' && matched) {
        throw new AsimovError(
          'policy_example_failed',
          `custom rule "${c.id}": the notMatch example ${describeExample(ex)} triggers it; narrow the rule's \`match\` or fix the example`,
          loc,
        );
      }
    });
  }
}

export function describeExample(ex: RuleExample): string {
  return typeof ex === 'string' ? JSON.stringify(ex) : `{ tool: ${ex.tool}, input: ${JSON.stringify(ex.input)} }`;
}

// ---- globs -------------------------------------------------------------------------------------

/**
 * A glob over a single word (argv value, host, tool name): `*` is any run of characters, `?` one,
 * `[…]` a class, `\` escapes. In `url` mode `*` stops at `/` and `**` crosses it, and a trailing
 * `/**` also matches nothing (so `https://paste.*\/**` matches `https://paste.ee`).
 */
export function globToRegExp(glob: string, mode: 'word' | 'url' = 'word', flags = ''): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\' && i + 1 < glob.length) {
      re += escapeRe(glob[++i] as string);
    } else if (c === '*') {
      if (mode === 'url' && glob[i + 1] === '*') {
        const trailing = glob[i - 1] === '/' && i + 2 === glob.length;
        i++;
        // `re` ends with the escaped slash `\/` here; make the slash and the rest optional.
        if (trailing) re = `${re.slice(0, -2)}(?:/.*)?`;
        else re += '.*';
      } else {
        re += mode === 'url' ? '[^/]*' : '.*';
      }
    } else if (c === '?') {
      re += mode === 'url' ? '[^/]' : '.';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
      } else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else {
      re += escapeRe(c);
    }
  }
  return new RegExp(`^${re}$`, flags);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function hasGlobChars(s: string): boolean {
  return /[*?[\]{}!]/.test(s);
}

function expandTilde(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/**
 * Policy path globs made absolute: `~` expanded, relative ones resolved against the project root.
 * A plain path (no glob characters) also covers everything beneath it, and `dir/` means `dir/**`.
 */
export function resolvePathGlobs(globs: readonly string[], home: string, projectRoot: string): string[] {
  const out: string[] = [];
  for (const g of globs) {
    let p = expandTilde(g, home);
    if (!isAbsolute(p)) p = join(projectRoot, p);
    else p = join(p); // normalises `//` and `/./`
    if (p.length > 1 && p.endsWith('/')) p = `${p.slice(0, -1)}/**`;
    if (hasGlobChars(p)) out.push(p);
    else out.push(p, p === '/' ? '/**' : `${p}/**`);
  }
  return [...new Set(out)];
}

// ---- shell side --------------------------------------------------------------------------------

type RuleMeta = Pick<ShellRule, 'id' | 'tier' | 'reason' | 'examples'>;

/** Matches one argv word against one `command` element. */
function wordMatcher(glob: string, first: boolean): (w: Word) => boolean {
  if (glob === '*') return () => true;
  const re = globToRegExp(glob);
  // A word bash would expand at run time is unknown text: only `*` may claim to match it.
  return (w) => w.literal && (re.test(w.value) || (first && re.test(basename(w.value))));
}

/** Path matching with globs resolved for the call's home and project, cached per pair. */
function pathMatcher(globs: readonly string[]): (candidates: string[], ctx: RuleContext) => string | undefined {
  const cache = new Map<string, (p: string) => boolean>();
  return (candidates, ctx) => {
    const key = `${ctx.home}\0${ctx.projectRoot}`;
    let isMatch = cache.get(key);
    if (!isMatch) {
      isMatch = picomatch(resolvePathGlobs(globs, ctx.home, ctx.projectRoot), { dot: true });
      cache.set(key, isMatch);
    }
    for (const p of candidates) {
      for (const abs of absoluteForms(p, ctx)) if (isMatch(abs)) return p;
    }
    return undefined;
  };
}

/**
 * The absolute forms of a literal path: as the path classifier resolves it (symlinks followed), and
 * lexically, so a glob written against either spelling of a symlinked directory still matches.
 */
function absoluteForms(p: string, ctx: RuleContext): string[] {
  const out: string[] = [];
  const info = ctx.path(p);
  if (info.abs !== null) out.push(info.abs);
  const lexical = resolve(ctx.cwd, expandTilde(p, ctx.home));
  if (!out.includes(lexical)) out.push(lexical);
  return out;
}

/** Host globs (`*.corp.example.com`, also matching the bare suffix) and URL globs (`https://paste.*\/**`). */
function urlMatcher(globs: readonly string[]): (url: string) => boolean {
  const hostRes: RegExp[] = [];
  const urlRes: RegExp[] = [];
  for (const g of globs) {
    if (g.includes('/')) {
      urlRes.push(globToRegExp(g, 'url', 'i'));
    } else {
      hostRes.push(globToRegExp(g, 'word', 'i'));
      if (g.startsWith('*.')) hostRes.push(globToRegExp(g.slice(2), 'word', 'i'));
    }
  }
  return (url) => {
    const host = hostOf(url);
    if (host !== null && hostRes.some((re) => re.test(host))) return true;
    return urlRes.some((re) => re.test(url));
  };
}

function hostOf(url: string): string | null {
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`);
    return u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase() || null;
  } catch {
    return null;
  }
}

const URL_IN_WORD = /[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi;

/** Arguments that may name files: non-option words, `--opt=value` values, and redirect targets. */
function shellPathCandidates(cmd: SimpleCommand): string[] {
  const out: string[] = [];
  cmd.argv.forEach((w, i) => {
    if (i === 0 || !w.literal || w.value === '') return;
    if (!w.value.startsWith('-')) out.push(w.value);
    else {
      const eq = w.value.indexOf('=');
      if (w.value.startsWith('--') && eq > 0 && eq < w.value.length - 1) out.push(w.value.slice(eq + 1));
    }
  });
  for (const r of cmd.redirects) {
    if ((r.access === 'write' || r.access === 'read') && r.target.literal) out.push(r.target.value);
  }
  return out;
}

function compileShellSide(m: MatchDef, meta: RuleMeta): ShellRule {
  const argv = m.command?.map((g, i) => wordMatcher(g, i === 0));
  const pattern = m.pattern !== undefined ? new RegExp(m.pattern) : undefined;
  const paths = m.path ? pathMatcher(m.path) : undefined;
  const urls = m.url ? urlMatcher(m.url) : undefined;
  const program = m.command?.[0];
  const programs = program !== undefined && !hasGlobChars(program) ? [basename(program).toLowerCase()] : undefined;
  return {
    kind: 'shell',
    ...meta,
    ...(programs ? { programs } : {}),
    match(cmd: SimpleCommand, ctx: RuleContext): RuleResult {
      if (argv) {
        if (cmd.argv.length < argv.length) return null;
        for (let i = 0; i < argv.length; i++) {
          const w = cmd.argv[i];
          const test = argv[i];
          if (!w || !test || !test(w)) return null;
        }
      }
      if (pattern && !pattern.test(cmd.argv.map((w) => w.value).join(' '))) return null;
      let subject = cmd.text;
      if (paths) {
        const hit = paths(shellPathCandidates(cmd), ctx);
        if (hit === undefined) return null;
        subject = hit;
      }
      if (urls) {
        const found = cmd.argv.flatMap((w) => w.value.match(URL_IN_WORD) ?? []);
        const hit = found.find(urls);
        if (hit === undefined) return null;
        subject = hit;
      }
      return { subject };
    },
  };
}

// ---- tool side ---------------------------------------------------------------------------------

const PATH_KEYS = ['file_path', 'path', 'notebook_path'] as const;

function compileToolSide(m: MatchDef, meta: RuleMeta): ToolRule {
  const names = m.tools ? new Set(m.tools.map((t) => t.toLowerCase())) : undefined;
  const toolRes = m.tool?.map((g) => globToRegExp(g));
  const paths = m.path ? pathMatcher(m.path) : undefined;
  const urls = m.url ? urlMatcher(m.url) : undefined;
  const kinds = TOOL_KINDS as readonly string[];
  const dispatch = m.tools && m.tools.every((t) => kinds.includes(t)) && !m.tool ? m.tools.filter((t) => t !== 'shell') : undefined;
  return {
    kind: 'tool',
    ...meta,
    ...(dispatch ? { tools: dispatch } : {}),
    match(call: ToolCall, ctx: RuleContext): RuleResult {
      if (names && !names.has(call.tool.toLowerCase()) && !(call.clientTool && names.has(call.clientTool.toLowerCase()))) return null;
      if (toolRes) {
        const raw = call.clientTool ?? call.tool;
        if (!toolRes.some((re) => re.test(raw))) return null;
      }
      let subject: string = call.clientTool ?? call.tool;
      if (paths) {
        const candidates = PATH_KEYS.map((k) => call.input[k]).filter((v): v is string => typeof v === 'string' && v !== '');
        const hit = paths(candidates, ctx);
        if (hit === undefined) return null;
        subject = hit;
      }
      if (urls) {
        const u = call.input.url;
        if (typeof u !== 'string' || !urls(u)) return null;
        subject = u;
      }
      return { subject };
    },
  };
}
