// What keeps a client from running a hook that is installed, where that can be checked offline: Gemini CLI's
// folder trust and hook switches, Codex's hook trust record, Qwen Code's disableAllHooks, a Droid hooks.json
// without asimov's hook, OpenCode's pure mode. Each fact comes from the client's wire module and docs/clients.md; a client with nothing checkable
// gets no lines. Project-scope wirings of clients that read project hooks only in folders they trust get a
// warning, since that trust is kept where asimov cannot read it reliably.

import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { getNodeValue } from 'jsonc-parser';
import { describeError } from '../core/errors.ts';
import { isPlainObject } from '../core/json.ts';
import { codexAsimovEntries, codexConfigPath, codexTrustRecord } from './codex.ts';
import { planCodexTrust } from './codex-trust.ts';
import { geminiSettingsPath, GEMINI_HOOK_NAME } from './gemini.ts';
import { isBlank, parseJsonDocument } from './json-settings.ts';
import { qwenSettingsPath } from './qwen.ts';
import { readTextFile, resolveTarget } from './write-file.ts';
import type { DoctorCheck, DoctorOptions } from './doctor.ts';

/** A config file that holds asimov's tier-1 hook. */
export interface WiredFile {
  scope: string;
  path: string;
  text: string;
}

export interface CaveatContext {
  o: DoctorOptions;
  /** The files holding asimov's tier-1 hook. */
  wired: readonly WiredFile[];
  /** The tiers the client is wired at besides 1 (Gemini's tier 2 does not depend on folder trust). */
  otherTiers: readonly number[];
}

export function clientCaveats(client: string, c: CaveatContext): DoctorCheck[] {
  switch (client) {
    case 'gemini': return [...geminiSwitches(c), geminiFolderTrust(c)];
    case 'codex': return [...codexTrust(c), ...projectOnly(c, 'Codex reads a project\'s .codex/hooks.json only once you trust that project folder in Codex')];
    case 'qwen': return [...qwenSwitches(c), ...projectOnly(c, 'Qwen Code reads .qwen/settings.json only in folders it trusts')];
    case 'copilot': return projectOnly(c, 'Copilot reads .github/hooks only in folders it trusts (its trust prompt, --trust-folder, or COPILOT_ALLOW_ALL=true)');
    case 'droid': return droidHooksFile(c);
    case 'opencode': return opencodePure(c);
    default: return [];
  }
}

/** A hook installed at project scope only depends on a folder trust that doctor cannot read. */
function projectOnly(c: CaveatContext, why: string): DoctorCheck[] {
  if (c.wired.length === 0 || c.wired.some((w) => w.scope !== 'project')) return [];
  return [{ status: 'warn', title: `asimov's hook is wired at project scope only: ${why}; doctor cannot check that trust`, fix: 'wire the user scope too (the default), which every session reads' }];
}

type Ctx = { home: string; projectRoot: string; env: NodeJS.ProcessEnv };
const ctxOf = (o: DoctorOptions): Ctx => ({ home: o.home, projectRoot: o.projectRoot, env: o.env });

/** A JSON settings file (comments allowed) as a plain object; undefined when absent, blank or unreadable. */
function readSettings(path: string): Record<string, unknown> | undefined {
  try {
    const text = readTextFile(resolveTarget(path).realPath);
    if (text === null || isBlank(text)) return undefined;
    const v: unknown = getNodeValue(parseJsonDocument(text, path, { comments: true, trailingCommas: true }).root);
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function at(v: unknown, ...keys: string[]): unknown {
  for (const k of keys) v = isPlainObject(v) ? v[k] : undefined;
  return v;
}

// --- Gemini CLI (facts from @google/gemini-cli 0.61.0's source; see src/wire/gemini.ts) ---

const GEMINI_SCOPES = ['system', 'user', 'project'] as const;

/** `hooksConfig.enabled: false` switches every hook off; `hooksConfig.disabled` names hooks that do not run. */
function geminiSwitches(c: CaveatContext): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  for (const scope of GEMINI_SCOPES) {
    const path = geminiSettingsPath(scope, ctxOf(c.o));
    const s = readSettings(path);
    if (at(s, 'hooksConfig', 'enabled') === false) {
      out.push({ status: 'fail', title: `"hooksConfig": {"enabled": false} in ${path} switches every Gemini CLI hook off, asimov's included`, fix: 'remove that setting' });
    }
    const disabled = at(s, 'hooksConfig', 'disabled');
    if (Array.isArray(disabled) && disabled.includes(GEMINI_HOOK_NAME)) {
      out.push({ status: 'fail', title: `hooksConfig.disabled in ${path} lists "${GEMINI_HOOK_NAME}", so Gemini CLI skips asimov's hook`, fix: `take "${GEMINI_HOOK_NAME}" off that list (\`asimov wire gemini\` does it in the file it wires)` });
    }
  }
  return out;
}

/**
 * With folder trust on (the default), Gemini CLI runs no hooks at all, user and system ones included, in a
 * folder the person has not trusted. Mirrors Gemini's checkPathTrust: the environment first, then
 * `security.folderTrust.enabled` (system settings over user), then the longest matching rule of
 * trustedFolders.json on real paths; no rule means not trusted.
 */
function geminiFolderTrust(c: CaveatContext): DoctorCheck {
  const { o } = c;
  const dir = o.cwd;
  // Tier 2 takes Gemini's own tools away whatever the trust, so an untrusted folder is then no hole.
  const miss = (title: string, detail?: string): DoctorCheck => (c.otherTiers.includes(2)
    ? { status: 'warn', title: `${title}; the tier 2 wiring still holds there`, ...(detail ? { detail } : {}) }
    : {
      status: 'fail', title, ...(detail ? { detail } : {}),
      fix: 'trust the folder in Gemini CLI (it asks when it starts there, or `/permissions trust` in a session), or wire it at tier 2 (`asimov wire gemini --tier 2`), which does not depend on trust',
    });
  if (o.env.GEMINI_RESTRICTED_MODE === 'true' || o.env.GEMINI_CLI_TRUST_WORKSPACE === 'false') {
    return miss('GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE in this environment makes Gemini CLI distrust every folder, so it runs no hooks, asimov\'s included');
  }
  if (o.env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return { status: 'ok', title: 'GEMINI_CLI_TRUST_WORKSPACE=true in this environment: Gemini CLI trusts this folder and runs its hooks' };
  const ctx = ctxOf(o);
  const setting = [geminiSettingsPath('system', ctx), geminiSettingsPath('user', ctx)]
    .map((p) => at(readSettings(p), 'security', 'folderTrust', 'enabled'))
    .find((v) => typeof v === 'boolean');
  if (setting === false) return { status: 'ok', title: 'folder trust is off in Gemini CLI\'s settings, so its hooks run in every folder' };
  // Gemini takes both variables as given, so a relative one is relative to where it starts.
  const geminiHome = o.env.GEMINI_CLI_HOME ? resolve(dir, o.env.GEMINI_CLI_HOME) : o.home;
  const file = o.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH ? resolve(dir, o.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH) : join(geminiHome, '.gemini', 'trustedFolders.json');
  let rules: Record<string, unknown> = {};
  try {
    const text = readTextFile(resolveTarget(file).realPath);
    if (text !== null) {
      const v: unknown = getNodeValue(parseJsonDocument(text, file, { comments: true }).root);
      if (!isPlainObject(v)) throw new Error('it is not a JSON object');
      rules = v;
    }
  } catch (e) {
    return { status: 'fail', title: `Gemini CLI cannot read its trusted folders file ${file}, and refuses to start until it is fixed`, detail: describeError(e), fix: 'fix or remove that file' };
  }
  const bad = Object.entries(rules).find(([, level]) => !['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST'].includes(level as string));
  if (bad) return { status: 'fail', title: `${file} gives "${bad[0]}" the trust level ${JSON.stringify(bad[1])}, which Gemini CLI refuses (it does not start)`, fix: 'use TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST' };
  const here = realOr(dir);
  let best: { path: string; level: string } | undefined;
  for (const [path, level] of Object.entries(rules)) {
    const effective = level === 'TRUST_PARENT' ? dirname(path) : path;
    if (!isWithin(realOr(resolve(effective)), here)) continue;
    if (!best || path.length > best.path.length) best = { path, level: level as string };
  }
  if (best && best.level !== 'DO_NOT_TRUST') return { status: 'ok', title: `Gemini CLI trusts this folder (${best.level} for ${best.path} in ${file}), so it runs its hooks here` };
  return miss(
    best ? `Gemini CLI distrusts ${dir} (DO_NOT_TRUST for ${best.path} in ${file}), so it runs no hooks here, asimov's included`
      : `Gemini CLI has not been told to trust ${dir} (no rule in ${file}), so it runs no hooks here, asimov's included`,
    'in an untrusted folder Gemini asks before each tool that changes something, but read-only tools run unchecked and headless runs refuse to start',
  );
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isWithin(parent: string, child: string): boolean {
  // As Gemini's isSubpath: the folder itself counts.
  const r = relative(parent, child);
  return r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r);
}

// --- Codex CLI (src/wire/codex.ts, codex-trust.ts) ---

/** Codex skips a hook whose hash config.toml does not record, without a word: every tool then runs unchecked. */
function codexTrust(c: CaveatContext): DoctorCheck[] {
  const config = codexConfigPath(ctxOf(c.o));
  return c.wired.map((w): DoctorCheck => {
    try {
      const entry = codexAsimovEntries(w.text, w.path)[0];
      if (!entry) return { status: 'fail', title: `no asimov PreToolUse entry Codex would run in ${w.path}`, fix: 'run `asimov wire codex` again' };
      const want = codexTrustRecord(w.path, entry);
      const plan = planCodexTrust(readTextFile(resolveTarget(config).realPath), { file: config, want, drop: [] });
      if (plan.changes.length === 0) return { status: 'ok', title: `Codex's trust record for asimov's hook in ${w.path} is in ${config}` };
      return {
        status: 'fail',
        title: `${config} does not trust asimov's hook in ${w.path} as it is now, so Codex skips it without a word`,
        detail: plan.changes.join('\n'),
        fix: 'run `asimov wire codex` again (it records the trust of its own entry)',
      };
    } catch (e) {
      return { status: 'fail', title: `Codex's hook trust for ${w.path} cannot be checked`, detail: describeError(e), fix: 'fix the file named above, then run `asimov wire codex` again' };
    }
  });
}

// --- Qwen Code (src/wire/qwen.ts) ---

function qwenSwitches(c: CaveatContext): DoctorCheck[] {
  const ctx = ctxOf(c.o);
  return (['system', 'user', 'project'] as const).flatMap((scope): DoctorCheck[] => {
    const path = qwenSettingsPath(scope, ctx);
    return readSettings(path)?.['disableAllHooks'] === true
      ? [{ status: 'fail', title: `"disableAllHooks": true in ${path} switches every Qwen Code hook off, asimov's included`, fix: 'remove that setting' }]
      : [];
  });
}

// --- Factory Droid (src/wire/droid.ts) ---

/** Newer Droid versions read a hooks.json beside settings.json instead of settings.json's hooks. */
function droidHooksFile(c: CaveatContext): DoctorCheck[] {
  return c.wired.flatMap((w): DoctorCheck[] => {
    const file = join(dirname(w.path), 'hooks.json');
    let text: string | null;
    try {
      text = readTextFile(resolveTarget(file).realPath);
    } catch (e) {
      return [{ status: 'fail', title: `${file} cannot be read`, detail: describeError(e) }];
    }
    if (text === null || text.includes('asimov-hook:droid')) return [];
    return [{
      status: 'fail',
      title: `${file} exists without asimov's hook: Droid versions that read hooks.json ignore the hooks in ${w.path}`,
      fix: `run \`asimov wire droid${w.scope === 'user' ? '' : ` --scope ${w.scope}`}\` again (it adds the hook to an existing hooks.json)`,
    }];
  });
}

// --- OpenCode (src/wire/opencode.ts) ---

/** `OPENCODE_PURE` starts OpenCode without any file plugin; seen here only in doctor's own environment. */
function opencodePure(c: CaveatContext): DoctorCheck[] {
  const v = c.o.env.OPENCODE_PURE;
  if (v === undefined || v === '' || v === '0' || v.toLowerCase() === 'false') return [];
  return [{ status: 'warn', title: `OPENCODE_PURE=${v} in this environment: OpenCode started from it loads no plugins, asimov's included`, fix: 'unset OPENCODE_PURE (and do not start OpenCode with --pure)' }];
}
