// The ground rules the judge applies: `.asimov/ground-rules.md` in the project root, else the seeds'
// `groundRules.md` (in `.asimov/` or the root), else the user's own `~/.config/asimov/ground-rules.md`, else
// a built-in text. A file that exists but cannot be read, or is too large to send whole, is an error rather
// than a silent fallback: the judge is then not asked (unsure, so a person decides) and the reason names it.
//
// A project's rules steer what the judge allows, so, like a policy file that loosens, they count only once
// their exact content is trusted (`asimov trust .asimov/ground-rules.md`): a cloned repository must not be
// able to ship "everything is allowed". Untrusted project rules are skipped and the skip is reported.

import { readRegularFile } from '../core/read-regular.ts';
import { join } from 'node:path';
import { STARTER_GROUND_RULES } from '../policy/starter.ts';
import { asimovConfigDir, isTrusted, linkedOutsideProject } from '../policy/trust.ts';

/** Largest ground-rules file sent to the judge. Rules are meant to be a page, not a manual. */
export const MAX_GROUND_RULES_BYTES = 32 * 1024;

/** Where ground rules are looked for, relative to the project root, first found wins. */
export const GROUND_RULES_FILES = [join('.asimov', 'ground-rules.md'), join('.asimov', 'groundRules.md'), 'groundRules.md'] as const;

/** The rules used when a project has none: the same text `asimov init` writes. */
export const DEFAULT_GROUND_RULES: string = STARTER_GROUND_RULES;

export interface GroundRules {
  text: string;
  /** The file the rules came from, or `builtin`. */
  source: string;
}

export class GroundRulesError extends Error {
  constructor(message: string, readonly file: string) {
    super(message);
    this.name = 'GroundRulesError';
  }
}

export interface GroundRulesOptions {
  home?: string;
  env?: NodeJS.ProcessEnv;
  /** The trust store (default: the standard one). */
  trustStorePath?: string;
}

/** The ground rules for a project. Throws GroundRulesError for a file that exists but is unusable. */
export function loadGroundRules(projectRoot: string, o: GroundRulesOptions = {}): GroundRules & { ignored?: string } {
  const env = o.env ?? process.env;
  const trustOpts = { env, ...(o.home !== undefined ? { home: o.home } : {}), ...(o.trustStorePath !== undefined ? { storePath: o.trustStorePath } : {}) };
  let ignored: string | undefined;
  for (const rel of GROUND_RULES_FILES) {
    const file = join(projectRoot, rel);
    const text = readRules(file);
    if (text === null) continue;
    const target = linkedOutsideProject(file, projectRoot);
    if (target !== null) {
      ignored ??= `${file} is a link to ${target}, outside this project, so the judge does not use it (copy it into the project and trust the copy)`;
      continue;
    }
    if (!isTrusted(file, text, trustOpts)) {
      ignored ??= `${file} is not trusted, so the judge does not use it (read it, then \`asimov trust ${file}\`)`;
      continue;
    }
    return { text, source: file, ...(ignored ? { ignored } : {}) };
  }
  const own = join(asimovConfigDir(o.home, env), 'ground-rules.md');
  const text = readRules(own);
  if (text !== null) return { text, source: own, ...(ignored ? { ignored } : {}) };
  return { text: DEFAULT_GROUND_RULES, source: 'builtin', ...(ignored ? { ignored } : {}) };
}

/** The file's text; null when it does not exist or is empty ("no rules of my own", not "no rules at all"). */
function readRules(file: string): string | null {
  let bytes: Buffer;
  try {
    // Never blocks on a FIFO or device; one byte over the limit is enough to refuse the file below.
    const b = readRegularFile(file, MAX_GROUND_RULES_BYTES + 1);
    if (b === undefined) return null;
    bytes = b;
  } catch (e) {
    throw new GroundRulesError(`the ground rules at ${file} cannot be read: ${(e as Error).message}`, file);
  }
  if (bytes.length > MAX_GROUND_RULES_BYTES) {
    throw new GroundRulesError(`the ground rules at ${file} are ${bytes.length} bytes, more than the ${MAX_GROUND_RULES_BYTES} the judge is sent; shorten them`, file);
  }
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD')) throw new GroundRulesError(`the ground rules at ${file} are not valid UTF-8`, file);
  return text.trim() === '' ? null : text;
}

/**
 * The team's ground rules (the team server's, cached with its policy: EffectivePolicy.team) after this
 * project's or user's own: the judge gets both, the team's under a heading of their own and last, as the
 * managed layer's word comes last. Nothing local replaces them; a project's rules still count only once trusted.
 */
export function withTeamGroundRules(own: string, team: { text: string; server: string; version?: number | undefined }): string {
  const from = `${team.server}${team.version !== undefined ? `, version ${team.version}` : ''}`;
  return `${own.trimEnd()}\n\n## The team's ground rules (from ${from}; they apply with the rules above)\n\n${team.text.trim()}\n`;
}
