// Finding, reading and parsing the policy files (YAML with positions), then layering them into the
// EffectivePolicy. Synchronous, because hooks load the policy once per process before answering.

import { statSync } from 'node:fs';
import { NotRegularFileError, readRegularFile } from '../core/read-regular.ts';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Document } from 'yaml';
import { AsimovError, describeError, formatLocated } from '../core/errors.ts';
import type { ErrorCode, ErrorLocation } from '../core/errors.ts';
import type { Rule } from './rule.ts';
import { recommended } from './rules/index.ts';
import { prebuiltRecommendedHash } from './builtin-hash.ts';
import type { KeyPath, ParsedPolicy } from './schema.ts';
import { formatKeyPath, validatePolicyData } from './schema.ts';
import type { ExampleRunner } from './custom.ts';
import type { EffectivePolicy, FileLayerName, LayerInput } from './layers.ts';
import { buildEffectivePolicy } from './layers.ts';
import { asimovConfigDir, isTrustedHash, linkedOutsideProject, sha256 } from './trust.ts';
import { asimovStateDir } from '../core/asimov-dirs.ts';
import { describeTeamPolicy, hasCopy, MAX_TEAM_GROUND_RULES_BYTES, readTeamMeta, teamCachePaths, type TeamPolicyState } from './team-cache.ts';

export const PROJECT_POLICY = join('.asimov', 'policy.yaml');
export const MANAGED_POLICY = '/etc/asimov/policy.yaml';
/** More problems than this in one file are summarised as a count. */
const MAX_REPORTED = 10;

export interface LoadOptions {
  /** Where the agent works; the project root is found from here. */
  cwd: string;
  /** Skip discovery and use this root. */
  projectRoot?: string;
  home?: string;
  /** The user policy; defaults to `$XDG_CONFIG_HOME/asimov/policy.yaml` or `~/.config/asimov/policy.yaml`. */
  userPath?: string;
  managedPath?: string;
  /** A policy file to use as the project layer instead of `<projectRoot>/.asimov/policy.yaml` (`asimov test FILE`). */
  projectPath?: string;
  trustStorePath?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Checks each custom rule's examples against it. The gate passes the real classifier's runner;
   * without one the examples are not run.
   */
  exampleRunner?: ExampleRunner;
  /** The built-in pack; `recommended` unless a caller (tests, tools) supplies another. */
  builtin?: readonly Rule[];
  /**
   * asimov's state directory, where the team policy's cached copy is (policy/team-cache.ts); default the
   * standard one. false: no team layer (a policy file checked on its own).
   */
  stateDir?: string | false;
}

export interface PolicyPaths {
  user: string;
  project: string;
  managed: string;
}

/** The nearest directory at or above `cwd` holding `.asimov/` or `.git`, else `cwd` itself. */
export function findProjectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (statSync(join(dir, '.asimov'), { throwIfNoEntry: false })?.isDirectory()) return dir;
    if (statSync(join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export function policyPaths(o: { projectRoot: string; home: string; env: NodeJS.ProcessEnv; userPath?: string; managedPath?: string; projectPath?: string }): PolicyPaths {
  return {
    user: resolve(o.userPath ?? join(asimovConfigDir(o.home, o.env), 'policy.yaml')),
    project: o.projectPath !== undefined ? resolve(o.projectPath) : join(o.projectRoot, PROJECT_POLICY),
    managed: resolve(o.managedPath ?? MANAGED_POLICY),
  };
}

/**
 * Loads and layers every policy file that exists. Missing files are absent layers; an unreadable
 * or invalid file throws AsimovError naming file, line and key (the gate then denies everything).
 */
export function loadPolicy(opts: LoadOptions): EffectivePolicy {
  const env = opts.env ?? process.env;
  const home = resolve(opts.home ?? env.HOME ?? homedir());
  const cwd = resolve(opts.cwd);
  const projectRoot = opts.projectRoot !== undefined ? resolve(opts.projectRoot) : findProjectRoot(cwd);
  const paths = policyPaths({ projectRoot, home, env, ...pick(opts, 'userPath', 'managedPath', 'projectPath') });
  const layers: LayerInput[] = [];
  for (const layer of ['user', 'project', 'managed'] as const satisfies readonly FileLayerName[]) {
    const file = paths[layer];
    const bytes = readPolicyBytes(file);
    if (bytes === undefined) continue;
    layers.push({ layer, parsed: parsePolicyText(bytes, file) });
  }
  const warnings: string[] = [];
  const team = opts.stateDir === false ? undefined : teamLayer(layers, opts.stateDir ?? asimovStateDir(env, home), warnings);
  if (team?.input) layers.push(team.input);
  const prebuilt = opts.builtin === undefined ? prebuiltRecommendedHash() : undefined;
  const policy = buildEffectivePolicy({
    builtin: opts.builtin ?? recommended,
    ...(prebuilt !== undefined ? { builtinHash: prebuilt } : {}),
    layers,
    projectRoot,
    home,
    isTrusted: (parsed) => {
      if (parsed.file === paths.project) {
        const target = linkedOutsideProject(parsed.file, projectRoot);
        if (target !== null) {
          warnings.push(`${parsed.file} is a link to ${target}, outside this project: trust belongs to a project's own file, so its loosening is ignored here (copy the file into the project and trust the copy)`);
          return false;
        }
      }
      try {
        return isTrustedHash(parsed.file, parsed.sha256, { storePath: opts.trustStorePath, home, env });
      } catch (e) {
        // A broken trust store must not break the gate: nothing is trusted, and the user is told.
        warnings.push(`${describeError(e)}; treating ${parsed.file} as untrusted`);
        return false;
      }
    },
    ...(opts.exampleRunner ? { exampleRunner: opts.exampleRunner } : {}),
  });
  policy.warnings.unshift(...warnings);
  if (team) policy.team = team.state;
  return policy;
}

/**
 * The team server whose policy applies: `audit.remote` of the user and managed files (a project's `audit:` is
 * ignored), the last file that sets it winning, as for EffectivePolicy.audit; null when none names one or
 * `audit.policy` is false.
 */
export function teamServerOf(layers: readonly LayerInput[]): string | null {
  let remote: string | undefined;
  let policy = true;
  for (const l of layers) {
    const a = l.layer === 'project' ? undefined : l.parsed.doc.audit;
    if (!a) continue;
    if (a.remote !== undefined) remote = a.remote.replace(/\/+$/, '');
    if (a.policy !== undefined) policy = a.policy;
  }
  return remote !== undefined && policy ? remote : null;
}

/**
 * The team policy's cached copy as a second managed layer, after /etc/asimov/policy.yaml (so both have the
 * managed file's word over the user and project files; between the two, the team's later word wins). Only a
 * copy of the server this machine names applies. A copy that does not parse is an error like any policy
 * file's (the fetch never writes one, so it was damaged here): the gate then denies, as for /etc's.
 */
function teamLayer(layers: readonly LayerInput[], stateDir: string, warnings: string[]): { input?: LayerInput; state: TeamPolicyState } | undefined {
  const server = teamServerOf(layers);
  if (server === null) return undefined;
  const meta = readTeamMeta(stateDir);
  const state: TeamPolicyState = { server, applied: false };
  if (meta !== null && meta.server === server) {
    if (meta.checkedAt) state.checkedAt = meta.checkedAt;
    if (meta.error !== undefined) state.error = meta.error;
    if (meta.failingSince !== undefined) state.failingSince = meta.failingSince;
    if (meta.none) state.none = true;
  } else if (hasCopy(meta)) {
    state.otherServer = meta.server;
  }
  const paths = teamCachePaths(stateDir);
  const bytes = hasCopy(meta) && meta.server === server ? readPolicyBytes(paths.policy) : undefined;
  if (bytes === undefined) {
    if (!state.none) warnings.push(describeTeamPolicy(state));
    return { state };
  }
  let parsed = parsePolicyText(bytes, paths.policy);
  if (parsed.doc.audit != null) {
    // Never published (the server refuses it) and never applied: where records go is this machine's say.
    const { audit: _dropped, ...doc } = parsed.doc;
    parsed = { ...parsed, doc };
    warnings.push(`${paths.policy}: the team policy's audit: setting is ignored (each machine's own user or managed policy says where records go)`);
  }
  Object.assign(state, { applied: true, file: paths.policy, version: meta!.version, ...(meta!.fetchedAt ? { fetchedAt: meta!.fetchedAt } : {}) });
  try {
    const rules = readRegularFile(paths.groundRules, MAX_TEAM_GROUND_RULES_BYTES);
    const text = rules?.toString('utf8');
    if (text !== undefined && text.trim() !== '') state.groundRules = text;
  } catch (e) {
    warnings.push(`the team's ground rules at ${paths.groundRules} cannot be read, so the judge does not get them: ${describeError(e)}`);
  }
  return { input: { layer: 'managed', parsed }, state };
}

function pick<T extends object, K extends keyof T>(o: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** The file's bytes, or undefined when it does not exist. Any other failure is an error. */
export function readPolicyBytes(file: string): Buffer | undefined {
  try {
    // Never blocks: a FIFO or device where a policy file belongs is an error, not a hang (for every project
    // the daemon serves).
    return readRegularFile(file, MAX_POLICY_BYTES);
  } catch (e) {
    if (e instanceof NotRegularFileError) throw new AsimovError('policy_io_error', `cannot read the policy file: ${e.message}`, { file }, { cause: e });
    const code = (e as NodeJS.ErrnoException).code;
    throw new AsimovError('policy_io_error', `cannot read the policy file (${code ?? 'error'}): ${(e as Error).message}`, { file }, { cause: e });
  }
}

/** A policy file is a page of YAML; anything over a megabyte is not one. */
export const MAX_POLICY_BYTES = 1024 * 1024;

interface Problem {
  message: string;
  loc: ErrorLocation;
}

/** One error for all the problems of a file: the first is located, the rest are listed beneath it. */
function problemsError(code: ErrorCode, problems: Problem[]): AsimovError {
  const [first, ...rest] = problems;
  if (!first) return new AsimovError(code, 'invalid policy file');
  let message = first.message;
  for (const p of rest.slice(0, MAX_REPORTED - 1)) message += `\n  also ${formatLocated(p.message, p.loc)}`;
  if (rest.length > MAX_REPORTED - 1) message += `\n  …and ${rest.length - (MAX_REPORTED - 1)} more`;
  return new AsimovError(code, message, first.loc);
}

/**
 * Parses and validates one policy file's text. YAML syntax errors and duplicate keys are
 * `policy_parse_error`, schema violations `policy_schema_error`, each with file, line, column, key.
 */
export function parsePolicyText(content: string | Uint8Array, file: string): ParsedPolicy {
  const text = (typeof content === 'string' ? content : Buffer.from(content).toString('utf8')).replace(/^\uFEFF/, '');
  const hash = sha256(content);
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number, path: KeyPath): ErrorLocation => {
    const { line, col } = lc.linePos(offset);
    return { file, line, column: col, ...(path.length ? { key: formatKeyPath(path) } : {}) };
  };
  if (doc.errors.length > 0) {
    throw problemsError(
      'policy_parse_error',
      doc.errors.map((e) => {
        const path = pathAtOffset(doc, e.pos[0]);
        const message =
          e.code === 'DUPLICATE_KEY'
            ? `duplicate key "${String(path[path.length - 1] ?? '')}"; each key may appear once`
            : `YAML syntax error: ${e.message.replace(/ at line \d+, column \d+[\s\S]*$/, '')}`;
        return { message, loc: at(e.pos[0], path) };
      }),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // Almost always an unquoted `*.example.com`, which YAML reads as an alias: point at it.
    const offset = unresolvedAliasOffset(doc);
    const loc = offset === undefined ? { file, line: 1 } : at(offset, pathAtOffset(doc, offset));
    const hint = offset === undefined ? '' : '; a value starting with * must be quoted, e.g. "*.example.com"';
    throw new AsimovError('policy_parse_error', `YAML error: ${(e as Error).message}${hint}`, loc, { cause: e });
  }
  const locate = (path: KeyPath, where: 'key' | 'value' = 'value'): ErrorLocation => at(offsetOf(doc, path, where), path);
  const r = validatePolicyData(data);
  if (!r.ok) {
    const problems = r.problems.map((p) => ({ message: p.message, loc: locate(p.path, p.at) }));
    problems.sort((a, b) => (a.loc.line ?? 0) - (b.loc.line ?? 0) || (a.loc.column ?? 0) - (b.loc.column ?? 0));
    throw problemsError('policy_schema_error', problems);
  }
  return { file, sha256: hash, doc: r.doc, locate };
}

type YNode = unknown;

function deref(doc: Document, node: YNode): YNode {
  return isAlias(node) ? node.resolve(doc) : node;
}

function rangeStart(node: YNode): number | undefined {
  const r = (node as { range?: [number, number, number] } | null)?.range;
  return r ? r[0] : undefined;
}

/**
 * The offset of the deepest node along `path` that exists: the key itself (`at: 'key'`) or its value.
 * A path into a missing key stops at the last key that is present.
 */
function offsetOf(doc: Document, path: KeyPath, where: 'key' | 'value'): number {
  let node: YNode = doc.contents;
  let keyOffset = rangeStart(node) ?? 0;
  let valueOffset = keyOffset;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    node = deref(doc, node);
    let next: YNode;
    let nextKey: number | undefined;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return keyOffset;
      nextKey = rangeStart(pair.key);
      next = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      next = node.items[seg];
      nextKey = rangeStart(next);
    } else {
      return keyOffset;
    }
    if (nextKey === undefined) return keyOffset;
    keyOffset = nextKey;
    valueOffset = rangeStart(next) ?? nextKey;
    node = next;
  }
  return where === 'key' ? keyOffset : valueOffset;
}

function unresolvedAliasOffset(doc: Document): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) === undefined) {
        found = rangeStart(node);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The key path of the innermost node containing `offset`, for errors YAML reports by position. */
function pathAtOffset(doc: Document, offset: number): (string | number)[] {
  const path: (string | number)[] = [];
  let node: YNode = doc.contents;
  const within = (n: YNode) => {
    const r = (n as { range?: [number, number, number] } | null)?.range;
    return r !== undefined && offset >= r[0] && offset <= r[2];
  };
  for (let depth = 0; depth < 64; depth++) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && (within(p.key) || within(p.value)));
      if (!pair || !isScalar(pair.key)) break;
      path.push(String(pair.key.value));
      if (within(pair.key)) break;
      node = pair.value;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((n) => within(n));
      if (i < 0) break;
      path.push(i);
      node = node.items[i];
    } else {
      break;
    }
  }
  return path;
}
