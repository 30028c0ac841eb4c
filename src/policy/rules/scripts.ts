// Built-in rules: scripts that run are read first. `python repro.py`, `node fake.js`, `bash x.sh`, `./x.sh`:
// when the file is new or modified in the working tree (untracked, or changed against git's index; outside a
// repository, changed in the last day), its content is analysed before it runs (Python and JavaScript with
// the inline-code analysis, shell scripts by the shell engine) instead of being waved through as "a script
// of the project". A tracked, unchanged file stays the project's tooling (exec.run-project-script), so
// `python manage.py test` does not start asking. This closes write-then-run across two calls: an agent that
// writes `fake.js` with the Write tool and then runs `node fake.js` is judged by what fake.js does.

import { lstatSync } from 'node:fs';
import type { Tier } from '../../core/types.ts';
import { readRegularFile } from '../../core/read-regular.ts';
import { MAX_CODE_CHARS } from '../../content/code/effects.ts';
import { defineShellRule, type Rule } from '../rule.ts';
import { worktreeStatus } from '../worktree-status.ts';
import { cutText as cut, lineWrites, scriptRun } from './exec.ts';
import { analyzeSource, judgeEffects } from './inline-code.ts';

/** Scripts larger than this are not read: soft_deny, "too large to read". */
export const MAX_SCRIPT_BYTES = 256 * 1024;
/** Outside a git repository, a script changed this recently is treated as new. */
const RECENT_MS = 24 * 60 * 60 * 1000;

type ScriptLang = 'python' | 'js' | 'shell' | 'other';

const EXT_LANG: Readonly<Record<string, ScriptLang>> = {
  py: 'python', pyw: 'python',
  js: 'js', mjs: 'js', cjs: 'js', ts: 'js', mts: 'js', cts: 'js', tsx: 'js', jsx: 'js',
  sh: 'shell', bash: 'shell', zsh: 'shell', ksh: 'shell', dash: 'shell',
};

/** The language a script is read in: the interpreter that runs it, else its extension, else its `#!` line. */
function languageOf(path: string, family: string | undefined, text: string): ScriptLang {
  if (family === 'python') return 'python';
  if (family === 'node' || family === 'deno' || family === 'bun') return 'js';
  if (family === 'shell') return 'shell';
  if (family !== undefined && family !== 'other') return 'other';
  const ext = /\.([A-Za-z]+)$/.exec(path)?.[1]?.toLowerCase();
  if (ext !== undefined && EXT_LANG[ext]) return EXT_LANG[ext]!;
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (shebang) {
    const prog = (shebang[1]!.endsWith('/env') ? shebang[2] ?? '' : shebang[1]!).split('/').pop()!;
    if (/^python[\d.]*$/.test(prog)) return 'python';
    if (/^(node|deno|bun|tsx|ts-node)$/.test(prog)) return 'js';
    if (/^(ba|da|k|z|)sh$/.test(prog)) return 'shell';
    return 'other';
  }
  return ext === undefined ? 'shell' : 'other';
}

const LANG_NAME: Readonly<Record<ScriptLang, string>> = { python: 'Python', js: 'JavaScript', shell: 'shell', other: '' };

const readScript = defineShellRule({
  id: 'exec.read-script',
  // Same pre-check as exec.run-project-script: a program given by a path, or an interpreter.
  needs: { traits: ['path-name', 'interpreter'] },
  // hard (graded): a new or modified script gets the tier of what it does (removing the home directory is
  // hard, reading a key soft); what cannot be read or known is soft. The rule's tier is only the ceiling.
  tier: 'hard_deny',
  reason: 'This runs a script that is new or modified in the working tree, and what it does needs a person; run the risky part on its own so it can be judged, or ask the user.',
  // The match examples need the scripts on disk, new in a git repository: test/policy/rules/scripts.test.ts.
  examplesNeedDisk: true,
  examples: {
    match: ['python repro.py  # repro.py: shutil.rmtree(os.path.expanduser("~"))', 'node fake.js  # fake.js, untracked: net.createServer(…) on the daemon\'s socket', './cleanup.sh  # modified: rm -rf ~/.cache ~/Documents'],
    notMatch: ['python3 -c "print(1)"', 'node index.js', 'bash -n deploy.sh', 'ls -la'],
  },
  match(cmd, ctx, analysis) {
    const run = scriptRun(cmd);
    if (run === null) return null;
    const { path: p, inv } = run;
    if (inv && (inv.syntaxOnly || inv.infoOnly)) return null; // `bash -n x.sh` only checks the syntax: nothing runs
    const info = ctx.path(p);
    const c = info.classes;
    // Scripts outside the project, written in the same line, or in asimov's or the agent's configuration are
    // other rules' business (fs, exec.write-then-run, selfmod); here: the project's own files.
    if (info.abs === null || !c.has('project') || c.has('dynamic') || c.has('outside')) return null;
    if (lineWrites(analysis, ctx).some((wr) => wr.abs === info.abs)) return null;
    let st;
    try {
      st = lstatSync(info.abs);
    } catch {
      return null; // not there: running it fails; nothing to read
    }
    if (!st.isFile()) return null;
    const status = worktreeStatus(info.abs);
    let why: string;
    if (status.kind === 'clean') return null;
    if (status.kind === 'changed') why = status.why;
    else if (Date.now() - st.mtimeMs < RECENT_MS) why = `changed in the last day (${status.why})`;
    else return null;
    if (st.size > MAX_SCRIPT_BYTES) {
      return { tier: 'soft_deny', subject: p, reason: `${p} is ${why} and too large to read (${Math.round(st.size / 1024)} KiB); run it after the user has looked at it.` };
    }
    let text: string;
    try {
      // The bytes git's index was compared with, when that comparison read them; else read now.
      text = (status.kind === 'changed' && status.content && status.content.length <= MAX_SCRIPT_BYTES ? status.content : readRegularFile(info.abs, MAX_SCRIPT_BYTES))?.toString('utf8') ?? '';
    } catch (e) {
      return { tier: 'soft_deny', subject: p, reason: `${p} is ${why} and could not be read (${(e as Error).message}); a person has to look at it.` };
    }
    const lang = languageOf(p, inv?.family, text);
    if (lang === 'other') {
      return { tier: 'soft_deny', subject: p, reason: `${p} is ${why}; asimov reads Python, JavaScript and shell scripts, not this one, so a person has to look at what it does.` };
    }
    if (lang === 'shell') {
      const r = ctx.classifyLine(text);
      if (r.tier === 'allow') return null;
      const tier: Tier = r.tier;
      return { tier, subject: p, reason: `${p} is ${why}; it would run ${r.rule ? `what ${r.rule} holds back: ` : ''}${r.reason}` };
    }
    if (text.length > MAX_CODE_CHARS) return { tier: 'soft_deny', subject: p, reason: `${p} is ${why} and too large to read; a person has to look at it.` };
    const fx = analyzeSource({ lang, text, from: p });
    const worst = judgeEffects(fx, ctx)[0];
    if (worst && worst.tier !== 'allow') {
      return { tier: worst.tier, subject: p, reason: `${p} is ${why}; this ${LANG_NAME[lang]} script ${worst.what}: ${worst.reason}` };
    }
    const unknowns = [...fx.unknowns, ...(fx.error ? [`part of it could not be read (${fx.error})`] : [])];
    if (unknowns.length > 0) {
      return { tier: 'soft_deny', subject: cut(p), reason: `${p} is ${why}; this ${LANG_NAME[lang]} script ${unknowns.slice(0, 3).join('; ')}, so what it does cannot be known before it runs. Ask the user.` };
    }
    return null;
  },
});

export const rules: Rule[] = [readScript];
