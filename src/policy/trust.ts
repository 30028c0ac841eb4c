// The trust store: which project policy files the user has reviewed, pinned to their exact content.
// A project file may loosen the policy only while its sha256 matches the one recorded here, because
// a cloned repository or the agent itself could have written it.

import { sha256Hex } from '../core/lazy.ts';
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { readRegularFile } from '../core/read-regular.ts';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { AsimovError } from '../core/errors.ts';

export interface TrustOptions {
  /** The store file; defaults to `<config dir>/asimov/trusted.json`. */
  storePath?: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/** One trusted file, and whether its content still matches what was trusted. */
export interface TrustEntry {
  path: string;
  sha256: string;
  status: 'trusted' | 'changed' | 'missing';
}

const SHA_RE = /^[0-9a-f]{64}$/;

/** The store and the files it trusts are small; a larger file (or a FIFO, a device) is refused, never waited on. */
const MAX_FILE_BYTES = 1024 * 1024;

/** A file's bytes for hashing; undefined when it does not exist. Throws for a non-regular or huge file. */
function readForHash(path: string): Buffer | undefined {
  return readRegularFile(path, MAX_FILE_BYTES);
}

/** `$XDG_CONFIG_HOME/asimov` when that is an absolute path (as the XDG spec requires), else `~/.config/asimov`. */
export function asimovConfigDir(home?: string, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'asimov');
  return join(home ?? env.HOME ?? homedir(), '.config', 'asimov');
}

export function defaultTrustStorePath(home?: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(asimovConfigDir(home, env), 'trusted.json');
}

export function sha256(content: string | Uint8Array): string {
  return sha256Hex(content);
}

/**
 * The key a file is trusted under: its canonical path, so the same file reached through a symlinked
 * directory (macOS `/tmp` vs `/private/tmp`) is recognised.
 */
export function trustKey(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * For a project's own file (policy, ground rules): the real path it leads to when that lies outside the
 * project's real root, else null. Trust is keyed on real paths, so a project whose `.asimov/policy.yaml` is
 * a link to another project's trusted file would otherwise borrow that file's trust (and its loosening,
 * and chains resolved against the wrong project).
 */
export function linkedOutsideProject(file: string, projectRoot: string): string | null {
  let real: string;
  let root: string;
  try {
    real = realpathSync(file);
    root = realpathSync(projectRoot);
  } catch {
    return null;
  }
  return real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`) ? null : real;
}

function storePathOf(opts: TrustOptions): string {
  return opts.storePath ?? defaultTrustStorePath(opts.home, opts.env ?? process.env);
}

/** Reads the store; a missing store is empty, a malformed one is an error (never silently "trusted"). */
export function readTrustStore(storePath: string): Record<string, string> {
  let text: string;
  try {
    const bytes = readRegularFile(storePath, MAX_FILE_BYTES);
    if (bytes === undefined) return {};
    text = bytes.toString('utf8');
  } catch (e) {
    throw new AsimovError('policy_io_error', `cannot read the trust store: ${(e as Error).message}`, { file: storePath }, { cause: e });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new AsimovError('policy_io_error', `the trust store is not valid JSON (${(e as Error).message}); fix or delete it and trust again`, { file: storePath }, { cause: e });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new AsimovError('policy_io_error', 'the trust store must be a JSON object of { "<policy file>": "<sha256>" }', { file: storePath });
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string' || !SHA_RE.test(v)) {
      throw new AsimovError('policy_io_error', `the trust store entry for ${k} is not a sha256 hex digest`, { file: storePath, key: k });
    }
    out[k] = v;
  }
  return out;
}

function writeTrustStore(storePath: string, store: Record<string, string>): void {
  const sorted = Object.fromEntries(Object.entries(store).sort(([a], [b]) => a.localeCompare(b)));
  try {
    mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 });
    // Write then rename, so a crash never leaves a half-written store behind.
    const tmp = `${storePath}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(sorted, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, storePath);
  } catch (e) {
    throw new AsimovError('policy_io_error', `cannot write the trust store: ${(e as Error).message}`, { file: storePath }, { cause: e });
  }
}

/** True when `path` is trusted with exactly this sha256 of its content. */
export function isTrustedHash(path: string, hash: string, opts: TrustOptions = {}): boolean {
  const store = readTrustStore(storePathOf(opts));
  return store[trustKey(path)] === hash;
}

/** True when `path` is trusted with exactly this content. */
export function isTrusted(path: string, content: string | Uint8Array, opts: TrustOptions = {}): boolean {
  return isTrustedHash(path, sha256(content), opts);
}

/** Trusts the file's current content. Any later edit changes the hash and so untrusts it. */
export function trustFile(path: string, opts: TrustOptions = {}): { path: string; sha256: string } {
  const key = trustKey(path);
  let content: Buffer | undefined;
  try {
    content = readForHash(key);
    if (content === undefined) throw Object.assign(new Error(`no such file: ${key}`), { code: 'ENOENT' });
  } catch (e) {
    throw new AsimovError('policy_io_error', `cannot read the policy file to trust: ${(e as Error).message}`, { file: key }, { cause: e });
  }
  const storePath = storePathOf(opts);
  const store = readTrustStore(storePath);
  const hash = sha256(content);
  store[key] = hash;
  writeTrustStore(storePath, store);
  return { path: key, sha256: hash };
}

/** Forgets the file; returns whether it was in the store. Works for files that no longer exist. */
export function untrustFile(path: string, opts: TrustOptions = {}): boolean {
  const storePath = storePathOf(opts);
  const store = readTrustStore(storePath);
  let removed = false;
  for (const k of new Set([trustKey(path), resolve(path)])) {
    if (k in store) {
      delete store[k];
      removed = true;
    }
  }
  if (removed) writeTrustStore(storePath, store);
  return removed;
}

/** Every trusted file, with whether its content still matches. */
export function listTrusted(opts: TrustOptions = {}): TrustEntry[] {
  const store = readTrustStore(storePathOf(opts));
  return Object.entries(store).map(([path, hash]) => {
    let status: TrustEntry['status'];
    try {
      const bytes = readForHash(path);
      status = bytes === undefined ? 'missing' : sha256(bytes) === hash ? 'trusted' : 'changed';
    } catch {
      status = 'missing';
    }
    return { path, sha256: hash, status };
  });
}
