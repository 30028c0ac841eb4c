// package.json: the scripts that run without anyone asking for them (install/publish/pack lifecycle, npm's
// `dependencies` hook, uninstall) and the git hooks package.json configures (simple-git-hooks, husky v4,
// yorkie's gitHooks, the `pre-commit` package's script list, lint-staged's commands that a hook runs).
// `test`, `build` and other scripts run when asked (`npm test`): not returned. Fragments and broken JSON are
// read leniently (jsonc-parser), and a `"postinstall": "…"` string scan backs it up (partial).

import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import type { Collector } from './util.ts';

export const LIFECYCLE = [
  'preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepublishOnly',
  'prepack', 'postpack', 'dependencies', 'preuninstall', 'uninstall', 'postuninstall',
  // npm 7+ runs these around `npm publish` / `npm version` too, which an agent may be asked to do
  'publish', 'postpublish', 'preversion', 'version', 'postversion',
];
const LIFECYCLE_SET = new Set(LIFECYCLE);

type Json = unknown;

function obj(v: Json): Record<string, Json> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Json>) : null;
}

/** JSON or JSONC, leniently: the value and whether it parsed cleanly. */
export function lenientJson(text: string, strict = false): { value: Json; clean: boolean } {
  // Plain JSON (nearly every package.json) through the engine's own parser, several times faster than the
  // JSONC one on a large file; anything it refuses goes to the forgiving parse below.
  try {
    return { value: JSON.parse(text) as Json, clean: true };
  } catch {
    // not plain JSON: comments, trailing commas, a fragment, a broken file
  }
  const errors: ParseError[] = [];
  let value: Json;
  try {
    value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch {
    return { value: undefined, clean: false };
  }
  if (errors.length > 0) return { value, clean: false };
  // Comments and trailing commas are JSONC, not JSON: npm's JSON.parse refuses such a package.json, so it is
  // read (what it says is still returned) but reported partial. Strict parse only when JSONC had anything to forgive.
  if (strict && /\/[/*]|,\s*[}\]]/.test(text)) {
    try {
      JSON.parse(text);
    } catch {
      return { value, clean: false };
    }
  }
  return { value, clean: true };
}

/** Values of `"name": "string"` pairs found by scanning (for text that is not JSON). */
export function scanJsonStrings(text: string, names: ReadonlySet<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
    const name = m[1]!;
    if (!names.has(name)) continue;
    let v: string;
    try {
      v = JSON.parse(`"${m[2]!}"`) as string;
    } catch {
      v = m[2]!;
    }
    out.push([name, v]);
  }
  return out;
}

function hookMap(v: Json, where: string, out: Collector): number {
  const o = obj(v);
  if (!o) return 0;
  let n = 0;
  for (const [hook, cmd] of Object.entries(o)) {
    if (typeof cmd === 'string') {
      out.command(cmd, `${where}["${hook}"] (git ${hook} hook)`);
      n++;
    }
  }
  return n;
}

/** Which lifecycle scripts a package.json text names, for the label. */
export function extractPackageJson(text: string, out: Collector): string[] {
  const { value, clean } = lenientJson(text, true);
  const root = obj(value);
  const seen: string[] = [];
  if (root) {
    const scripts = obj(root['scripts']) ?? {};
    for (const [name, cmd] of Object.entries(scripts)) {
      if (LIFECYCLE_SET.has(name) && typeof cmd === 'string') {
        out.command(cmd, `scripts.${name}`);
        seen.push(name);
      }
    }
    hookMap(root['simple-git-hooks'], 'simple-git-hooks', out);
    hookMap(obj(root['husky'])?.['hooks'], 'husky.hooks', out);
    hookMap(root['gitHooks'], 'gitHooks', out);
    // The `pre-commit` package: a list of script names (or one name) run as `npm run <name>` at commit.
    const pc = root['pre-commit'] ?? root['precommit'];
    const pcNames = typeof pc === 'string' ? pc.split(/[\s,]+/) : Array.isArray(pc) ? pc : obj(pc) && Array.isArray(obj(pc)!['run']) ? (obj(pc)!['run'] as Json[]) : [];
    for (const n of pcNames) {
      if (typeof n !== 'string' || n === '') continue;
      const s = scripts[n];
      out.command(typeof s === 'string' ? s : `npm run ${n}`, `pre-commit → scripts.${n} (runs at git commit)`);
    }
    // lint-staged's commands run at commit when a hook runs lint-staged (with the staged files appended).
    const ls = obj(root['lint-staged']);
    if (ls) {
      for (const [glob, cmds] of Object.entries(ls)) {
        for (const c of typeof cmds === 'string' ? [cmds] : Array.isArray(cmds) ? cmds : []) {
          if (typeof c === 'string') out.command(c, `lint-staged["${glob}"] (runs at commit)`);
        }
      }
    }
  }
  if (!clean) {
    // Not (only) JSON: a fragment such as `"postinstall": "curl … | sh",` or a broken file. Scan for
    // lifecycle pairs too; whatever the lenient parse already returned is not repeated.
    out.partial = true;
    const have = new Set(out.commands.map((c) => c.line));
    for (const [name, cmd] of scanJsonStrings(text, LIFECYCLE_SET)) {
      if (have.has(cmd)) continue;
      out.command(cmd, `scripts.${name} (read from text that is not valid JSON)`);
      seen.push(name);
    }
  }
  return seen;
}

/** .simple-git-hooks.json, .huskyrc(.json): hook name -> command (husky v4 under `hooks`). */
export function extractHookJson(text: string, out: Collector): void {
  const { value, clean } = lenientJson(text);
  const root = obj(value);
  if (root) {
    const n = hookMap(root, 'hooks', out);
    if (n === 0) hookMap(root['hooks'], 'hooks', out);
  }
  if (!clean) {
    out.partial = true;
    const have = new Set(out.commands.map((c) => c.line));
    for (const m of text.matchAll(/"([\w-]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
      let v = m[2]!;
      try {
        v = JSON.parse(`"${v}"`) as string;
      } catch {
        // keep the raw text
      }
      if (!have.has(v)) out.command(v, `"${m[1]}" (read from text that is not valid JSON)`);
    }
  }
}
