// The record of every place `asimov wire` wrote: which client, scope and tier, which config file (and the
// project it belongs to), with which options, and for every file it wrote whether wire created it and the
// directories it created on the way. `asimov uninstall` reads it to take asimov out of every place, project
// scopes in other directories included, and to delete what wire created rather than leave `{}` behind;
// `asimov wire --refresh` reads it to rewire every place after node or asimov moved.
//
// A small owner-only JSON file in asimov's state directory. The record only ever adds knowledge: a missing
// or unreadable one means "nothing recorded" (said, never a crash), and no person's file is ever deleted
// on its word alone: a created file goes only when what remains of it is what wire leaves of nothing.

import { asimovStateDir } from '../core/asimov-dirs.ts';
import { existsSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { describeError } from '../core/errors.ts';
import { isPlainObject } from '../core/json.ts';
import type { Tier } from './targets.ts';
import { writeFileAtomic } from './write-file.ts';

export const WIRE_RECORD_VERSION = 1;

/** One file wire wrote for a place: the config file itself, or a further one (a trust record, a rule file). */
export interface WrittenFile {
  /** Where the bytes really went (through symlinks). */
  path: string;
  /** Whether the file did not exist before wire wrote it. */
  created: boolean;
  /** The directories wire created on the way to a file it created, deepest first. */
  createdDirs: string[];
}

/** One place asimov is wired: a client's config file at a scope and tier. */
export interface WiredPlace {
  client: string;
  tier: Tier;
  scope: string;
  /** The config file as the client names it (the absolute path wire printed). */
  file: string;
  /** The project the scope belongs to, for the scopes that live in one. */
  projectRoot?: string;
  /** Extra arguments of the hook (`--on-allow passthrough`), as wire was given them. */
  args: string[];
  deadlineMs?: number;
  /** `--daemon manual|off` as wire was given it (absent: auto). */
  daemon?: 'manual' | 'off';
  /** When wire last wrote this place (ISO 8601). */
  wiredAt: string;
  files: WrittenFile[];
}

export interface WireRecord {
  /** Where the record lives. */
  path: string;
  places: WiredPlace[];
  /** Why the file on disk could not be used, when it could not (then `places` starts empty). */
  problem?: string;
}

/** `$XDG_STATE_HOME/asimov/wired.json` when that is absolute (as the XDG spec requires), else `~/.local/state/asimov/wired.json`. */
export function wireRecordPath(env: NodeJS.ProcessEnv, home?: string): string {
  return join(asimovStateDir(env, home), 'wired.json');
}

/** The record at `path`. Never throws: a missing file is an empty record, an unreadable one says why in `problem`. */
export function readWireRecord(path: string): WireRecord {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, places: [] };
    return { path, places: [], problem: describeError(e) };
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (!isPlainObject(v) || v['v'] !== WIRE_RECORD_VERSION || !Array.isArray(v['places'])) throw new Error(`not a version ${WIRE_RECORD_VERSION} record of wired places`);
    const places = v['places'].filter(isWiredPlace);
    const skipped = v['places'].length - places.length;
    return { path, places, ...(skipped > 0 ? { problem: `${skipped} entr${skipped === 1 ? 'y' : 'ies'} not understood, left out` } : {}) };
  } catch (e) {
    return { path, places: [], problem: `it is not valid: ${describeError(e)}` };
  }
}

const isString = (x: unknown): x is string => typeof x === 'string';
const isAbs = (x: unknown): x is string => isString(x) && isAbsolute(x);

function isWiredPlace(x: unknown): x is WiredPlace {
  if (!isPlainObject(x)) return false;
  const files = x['files'];
  return isString(x['client']) && [1, 2, 3].includes(x['tier'] as number) && isString(x['scope']) && isAbs(x['file'])
    && (x['projectRoot'] === undefined || isAbs(x['projectRoot']))
    && Array.isArray(x['args']) && x['args'].every(isString)
    && (x['deadlineMs'] === undefined || Number.isInteger(x['deadlineMs']))
    && (x['daemon'] === undefined || x['daemon'] === 'manual' || x['daemon'] === 'off')
    && isString(x['wiredAt'])
    && Array.isArray(files) && files.every((f) => isPlainObject(f) && isAbs(f['path']) && typeof f['created'] === 'boolean'
      && Array.isArray(f['createdDirs']) && f['createdDirs'].every(isAbs));
}

/**
 * Writes the record atomically, owner-only. An unreadable record on disk is first moved aside to
 * `wired.json.bad` (never silently overwritten: a person may want to read it). Throws AsimovError
 * wire_io_error when it cannot be written.
 */
export function saveWireRecord(record: WireRecord): void {
  if (record.problem !== undefined && existsSync(record.path)) {
    try {
      renameSync(record.path, `${record.path}.bad`);
    } catch {
      // writing the new record below says what is wrong with the directory
    }
  }
  const body = { v: WIRE_RECORD_VERSION, places: record.places };
  writeFileAtomic(record.path, `${JSON.stringify(body, null, 2)}\n`, { fileMode: 0o600, dirMode: 0o700 });
  delete record.problem;
}

/** A place's identity: the same client, tier and config file. */
export function samePlace(a: Pick<WiredPlace, 'client' | 'tier' | 'file'>, b: Pick<WiredPlace, 'client' | 'tier' | 'file'>): boolean {
  return a.client === b.client && a.tier === b.tier && a.file === b.file;
}

export function findPlace(record: WireRecord, key: Pick<WiredPlace, 'client' | 'tier' | 'file'>): WiredPlace | undefined {
  return record.places.find((p) => samePlace(p, key));
}

/**
 * Records a place wire just wrote. For a place recorded before, a file wire created stays created although
 * it exists now, so that uninstall still deletes it (when nothing else is in it by then).
 */
export function recordPlace(record: WireRecord, place: WiredPlace): void {
  const old = findPlace(record, place);
  const files = place.files.map((f) => {
    // Created now (it did not exist, whatever the record said), or created by an earlier run of this place
    // or of another one that shares the file (Gemini's hook and gated tools, Codex's config.toml): created.
    const before = old?.files.find((o) => o.path === f.path && o.created)
      ?? record.places.flatMap((p) => p.files).find((o) => o.path === f.path && o.created);
    return f.created || !before ? f : before;
  });
  for (const f of old?.files ?? []) if (!files.some((n) => n.path === f.path)) files.push(f);
  const merged = { ...place, files };
  record.places = [...record.places.filter((p) => !samePlace(p, place)), merged];
}

export function forgetPlace(record: WireRecord, key: Pick<WiredPlace, 'client' | 'tier' | 'file'>): void {
  record.places = record.places.filter((p) => !samePlace(p, key));
}

/** The directories on the way to `file` that do not exist yet, deepest first: what writing it would create. */
export function missingDirs(file: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(file); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) out.push(dir);
  return out;
}

/** Removes the directories wire created, deepest first, each only when empty; returns those removed. */
export function removeEmptyDirs(dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(d);
      removed.push(d);
    } catch {
      // not empty (the client or the person put something there), or gone already: it stays as it is
    }
  }
  return removed;
}
