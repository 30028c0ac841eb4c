// Builds the RuleContext a rule consults: path and URL classifiers, policy lists, the project's declared packages.

import { readRegularFile } from '../core/read-regular.ts';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { homedir } from 'node:os';
import { posix } from 'node:path';
import type { Classification } from '../core/types.ts';
import type { RuleContext } from './rule.ts';
import { createPathClassifier, requireAbsolute, type PathInfo } from './paths.ts';
import { createUrlClassifier, type UrlInfo } from './urls.ts';

export interface RuleContextOptions {
  cwd: string;
  /** Defaults to cwd. */
  projectRoot?: string;
  /** Defaults to os.homedir(). */
  home?: string;
  allowedDomains?: readonly string[];
  /** Trusted `dlp.allow` pairs (RuleContext.dlpAllow). */
  dlpAllow?: readonly { readonly credential: string; readonly hosts: readonly string[] }[];
  /** Defaults to `main` and `master`. */
  defaultBranches?: readonly string[];
  /** Resource-name globs treated as production, beyond the built-in ones (RuleContext.protectedNames). */
  protectedNames?: readonly string[];
  protectedPaths?: readonly string[];
  /** asimov's own directories where the environment puts them (PathClassifierOptions.asimovDirs). */
  asimovDirs?: readonly string[];
  /** Defaults to os.tmpdir(). */
  tmpdir?: string;
  /** Directories counted as temp (see PathClassifierOptions.tempDirs). */
  tempDirs?: readonly string[];
  /** What the session created (RuleContext.createdInSession); none when absent. */
  createdInSession?: (abs: string) => boolean;
}

export const DEFAULT_BRANCHES: readonly string[] = ['main', 'master'];
const NO_PAIRS: readonly { readonly credential: string; readonly hosts: readonly string[] }[] = Object.freeze([]);
const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * A fresh context for one call. Classifiers are not shared between calls on purpose: their realpath
 * caches must not outlive the call, or a symlink created by one call would be missed by the next.
 * Throws AsimovError('bad_input') when cwd/projectRoot/home are not absolute paths.
 */
export function createRuleContext(opts: RuleContextOptions): RuleContext {
  const cwd = opts.cwd;
  const projectRoot = opts.projectRoot ?? cwd;
  const home = opts.home ?? homedir();
  // Built on first use: many calls (`git status`, `npm test`) never classify a path or a URL.
  let pathClassifier: ((p: string) => PathInfo) | undefined;
  const makePathClassifier = () =>
    createPathClassifier({
      cwd,
      projectRoot,
      home,
      protectedPaths: opts.protectedPaths ?? [],
      ...(opts.asimovDirs !== undefined ? { asimovDirs: opts.asimovDirs } : {}),
      ...(opts.tmpdir !== undefined ? { tmpdir: opts.tmpdir } : {}),
      ...(opts.tempDirs !== undefined ? { tempDirs: opts.tempDirs } : {}),
    });
  // Checked one by one, not by a loop over [key, value] pairs: this runs for every call, and the pairs were garbage.
  requireAbsolute('cwd', cwd);
  requireAbsolute('projectRoot', projectRoot);
  requireAbsolute('home', home);
  // Shared, not copied: a context is built per call, and rules only read these lists.
  const allowedDomains: readonly string[] = opts.allowedDomains ?? [];
  let urlClassifier: ((u: string) => UrlInfo) | undefined;
  let declared: ReadonlySet<string> | undefined | null = null;
  return {
    cwd,
    projectRoot,
    home,
    path: (p: string, literal?: boolean) => (pathClassifier ??= makePathClassifier())(p, literal),
    // URLs involve no file system, so their classifier is shared by every context with the same domains.
    url: (u: string) => (urlClassifier ??= sharedUrlClassifier(allowedDomains))(u),
    allowedDomains,
    // Always present (empty when unset): every context has the same shape, so the rules' property loads stay
    // monomorphic, and no object is spread per call.
    dlpAllow: opts.dlpAllow ?? NO_PAIRS,
    defaultBranches: opts.defaultBranches ?? DEFAULT_BRANCHES,
    protectedNames: opts.protectedNames ?? NO_NAMES,
    declaredPackages() {
      if (declared === null) declared = readDeclaredPackages(projectRoot);
      return declared;
    },
    // Replaced by the engine (classify.ts) with one bound to the policy it runs.
    classifyLine: unboundClassifyLine,
    createdInSession: opts.createdInSession ?? nothingCreated,
    lineStart: null,
  };
}

function nothingCreated(): boolean {
  return false;
}

/** The context's line classifier before an engine run binds a policy to it. */
export function unboundClassifyLine(): Classification {
  return { tier: 'unknown', findings: [], reason: 'No policy is bound to this context to judge a nested command.', rule: null };
}

const urlClassifiers = new Map<string, (u: string) => UrlInfo>();

function sharedUrlClassifier(allowedDomains: readonly string[]): (u: string) => UrlInfo {
  const key = allowedDomains.join('\n');
  let c = urlClassifiers.get(key);
  if (!c) {
    if (urlClassifiers.size > 64) urlClassifiers.clear();
    c = createUrlClassifier({ allowedDomains });
    urlClassifiers.set(key, c);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------------------
// Declared packages. Parsed per manifest file and cached by (path, mtime, size) across contexts, because
// the manifests rarely change while an agent works and a context is built for every call.

interface CacheEntry {
  mtimeMs: number;
  size: number;
  names: string[] | null;
}
const manifestCache = new Map<string, CacheEntry>();

type Parser = (text: string) => string[] | null;

const MANIFESTS: ReadonlyArray<[string, Parser]> = [
  ['package.json', parsePackageJson],
  ['pyproject.toml', parsePyproject],
  ['Pipfile', parsePipfile],
  ['Cargo.toml', parseCargoToml],
  ['go.mod', parseGoMod],
  ['Gemfile', parseGemfile],
  // Lock files of uv, Poetry and PDM: every `[[package]]` they pinned is already part of the project's environment.
  ['uv.lock', parseLockPackages],
  ['poetry.lock', parseLockPackages],
  ['pdm.lock', parseLockPackages],
];

/** Directories of requirement files (`requirements/dev.txt`), read like requirements*.txt at the root. */
const REQUIREMENT_DIRS = ['requirements', 'requirements.d', 'reqs'];
/** At most this many requirement files per directory, and workspace manifests in all. */
const MAX_REQUIREMENT_FILES = 20;
const MAX_WORKSPACE_MANIFESTS = 50;

/**
 * Lower-cased names of the packages the project declares, from package.json (and its npm/yarn/pnpm workspaces'
 * package.json), requirements*.txt (and requirements/*.txt), pyproject.toml, Pipfile, Cargo.toml, go.mod, Gemfile,
 * uv.lock, poetry.lock and pdm.lock at the project root. Python names are also given in PEP 503 normal form
 * (`Foo_Bar` -> `foo-bar`). Undefined when no manifest could be read.
 */
export function readDeclaredPackages(projectRoot: string): ReadonlySet<string> | undefined {
  const files: Array<[string, Parser]> = MANIFESTS.map(([f, p]) => [posix.join(projectRoot, f), p]);
  try {
    for (const name of readdirSync(projectRoot)) {
      if (/^requirements.*\.txt$/i.test(name)) files.push([posix.join(projectRoot, name), parseRequirements]);
    }
  } catch {
    return undefined;
  }
  for (const d of REQUIREMENT_DIRS) {
    for (const f of listDir(projectRoot, d).filter((n) => /\.(txt|in)$/i.test(n)).slice(0, MAX_REQUIREMENT_FILES)) {
      files.push([posix.join(projectRoot, d, f), parseRequirements]);
    }
  }
  for (const dir of workspaceDirs(projectRoot)) files.push([posix.join(projectRoot, dir, 'package.json'), parsePackageJson]);
  let found = false;
  const out = new Set<string>();
  for (const [file, parse] of files) {
    const names = readManifest(file, parse);
    if (names === null) continue;
    found = true;
    for (const n of names) out.add(n);
  }
  return found ? out : undefined;
}

function readManifest(file: string, parse: Parser): string[] | null {
  let st;
  try {
    st = statSync(file);
  } catch {
    return null;
  }
  if (!st.isFile() || st.size > 4 * 1024 * 1024) return null;
  // One file can be read by two parsers (package.json: dependencies, and workspaces): the cache key names both.
  const key = `${parse.name}\0${file}`;
  const hit = manifestCache.get(key);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.names;
  let names: string[] | null;
  try {
    // Non-blocking and checked on the descriptor: the file may have been swapped for a FIFO since the stat.
    const bytes = readRegularFile(file, 4 * 1024 * 1024);
    names = bytes === undefined ? null : parse(bytes.toString('utf8'));
  } catch {
    names = null;
  }
  if (manifestCache.size > 512) manifestCache.clear();
  manifestCache.set(key, { mtimeMs: st.mtimeMs, size: st.size, names });
  return names;
}

/** Names in a directory of the project that is a real directory (not a link out of the project); [] otherwise. */
function listDir(projectRoot: string, rel: string): string[] {
  const abs = posix.join(projectRoot, rel);
  try {
    if (!lstatSync(abs).isDirectory()) return [];
    return readdirSync(abs).sort();
  } catch {
    return [];
  }
}

/**
 * The workspace directories the root declares (package.json `workspaces`, as an array or `{packages}`, and
 * pnpm-workspace.yaml `packages`), relative to the root. Patterns are literal directories or end in one `*`
 * segment (`packages/*`, `apps/**` read as one level); exclusions (`!…`), `..` and absolute patterns are skipped.
 * Every directory on the way must be a real directory (lstat), so a link cannot lead the read out of the project.
 * Bounded to MAX_WORKSPACE_MANIFESTS.
 */
function workspaceDirs(projectRoot: string): string[] {
  const patterns: string[] = [];
  const pkg = readManifest(posix.join(projectRoot, 'package.json'), parseWorkspacePatterns);
  if (pkg) patterns.push(...pkg);
  const pnpm = readManifest(posix.join(projectRoot, 'pnpm-workspace.yaml'), parsePnpmWorkspace);
  if (pnpm) patterns.push(...pnpm);
  const out: string[] = [];
  for (const raw of patterns) {
    if (out.length >= MAX_WORKSPACE_MANIFESTS) break;
    const pat = raw.trim().replace(/^\.\//, '').replace(/\/+$/, '');
    if (pat === '' || pat.startsWith('!') || pat.startsWith('/') || pat.split('/').some((seg) => seg === '..' || seg === '.')) continue;
    const segs = pat.split('/');
    const last = segs[segs.length - 1]!;
    const wild = last === '*' || last === '**';
    const fixed = wild ? segs.slice(0, -1) : segs;
    if (fixed.some((seg) => /[*?[\]{}]/.test(seg))) continue;
    if (!realDirs(projectRoot, fixed)) continue;
    const base = fixed.join('/');
    const dirs = wild ? listDir(projectRoot, base).filter((n) => !n.startsWith('.') && n !== 'node_modules').map((n) => (base ? `${base}/${n}` : n)) : [base];
    for (const d of dirs) {
      if (out.length >= MAX_WORKSPACE_MANIFESTS) break;
      if (d !== '' && !out.includes(d) && realDirs(projectRoot, d.split('/')) && isRealFile(posix.join(projectRoot, d, 'package.json'))) out.push(d);
    }
  }
  return out;
}

/** Each prefix of `segs` under the root is a directory, not a symbolic link. */
function realDirs(projectRoot: string, segs: readonly string[]): boolean {
  let cur = projectRoot;
  for (const seg of segs) {
    cur = posix.join(cur, seg);
    try {
      const st = lstatSync(cur);
      if (!st.isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function isRealFile(abs: string): boolean {
  try {
    return lstatSync(abs).isFile();
  } catch {
    return false;
  }
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** package.json `workspaces`: `["packages/*"]` (npm, yarn) or `{ "packages": [...] }` (yarn classic). */
function parseWorkspacePatterns(text: string): string[] | null {
  const pkg = JSON.parse(text) as Record<string, unknown>;
  if (typeof pkg !== 'object' || pkg === null) return null;
  const ws = pkg['workspaces'];
  if (Array.isArray(ws)) return stringList(ws);
  if (ws && typeof ws === 'object') return stringList((ws as Record<string, unknown>)['packages']);
  return [];
}

/** pnpm-workspace.yaml `packages:` list. */
function parsePnpmWorkspace(text: string): string[] | null {
  const doc = parseYaml(text, { maxAliasCount: 10 }) as unknown;
  if (doc === null || typeof doc !== 'object') return null;
  return stringList((doc as Record<string, unknown>)['packages']);
}

/** The `name = "…"` of every `[[package]]` table of a uv/Poetry/PDM lock file. */
function parseLockPackages(text: string): string[] {
  const out: string[] = [];
  for (const [header, lines] of tomlSections(text)) {
    if (header !== 'package') continue;
    for (const l of lines) {
      const m = /^name\s*=\s*"([^"]+)"\s*$/.exec(l);
      if (m) {
        out.push(...pyNames(m[1]!));
        break;
      }
    }
  }
  return out;
}

function pyNames(name: string): string[] {
  const lower = name.trim().toLowerCase();
  if (!lower) return [];
  const norm = lower.replace(/[-_.]+/g, '-');
  return norm === lower ? [lower] : [lower, norm];
}

/** The distribution name at the start of a PEP 508 requirement (`foo[bar]>=1; python_version<"3"`). */
function requirementName(req: string): string | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req);
  return m ? m[1]! : null;
}

function parsePackageJson(text: string): string[] | null {
  const pkg = JSON.parse(text) as Record<string, unknown>;
  if (typeof pkg !== 'object' || pkg === null) return null;
  const out: string[] = [];
  for (const key of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    const deps = pkg[key];
    if (deps && typeof deps === 'object') out.push(...Object.keys(deps).map((k) => k.toLowerCase()));
  }
  for (const key of ['bundledDependencies', 'bundleDependencies']) {
    const deps = pkg[key];
    if (Array.isArray(deps)) out.push(...deps.filter((d): d is string => typeof d === 'string').map((d) => d.toLowerCase()));
  }
  return out;
}

function parseRequirements(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line || line.startsWith('-') || line.includes('://')) continue;
    const name = requirementName(line);
    if (name) out.push(...pyNames(name));
  }
  return out;
}

/** The sections of a TOML file as [header, lines] pairs (no TOML parser among our dependencies). */
function tomlSections(text: string): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [['', []]];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s#.*$/, '').trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) out.push([header[1]!.replace(/["']/g, ''), []]);
    else if (line) out[out.length - 1]![1].push(line);
  }
  return out;
}

/** Keys of `key = value` lines (Cargo, Poetry, Pipfile dependency tables). */
function tableKeys(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    const m = /^["']?([A-Za-z0-9_.-]+)["']?\s*=/.exec(l);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** Every quoted string in the arrays of a section (PEP 621 `dependencies = [...]`, optional groups). */
function quotedStrings(lines: string[], onlyKey?: string): string[] {
  const out: string[] = [];
  let inArray = onlyKey === undefined;
  let depth = 0;
  for (const l of lines) {
    let rest = l;
    if (onlyKey !== undefined && depth === 0) {
      const m = new RegExp(`^${onlyKey}\\s*=\\s*(.*)$`).exec(l);
      if (!m) continue;
      inArray = true;
      rest = m[1]!;
    }
    if (!inArray) continue;
    for (const s of rest.matchAll(/"([^"]*)"|'([^']*)'/g)) out.push(s[1] ?? s[2] ?? '');
    depth += (rest.match(/\[/g) ?? []).length - (rest.match(/\]/g) ?? []).length;
    if (onlyKey !== undefined && depth <= 0) {
      depth = 0;
      inArray = false;
    }
  }
  return out;
}

function parsePyproject(text: string): string[] {
  const out: string[] = [];
  for (const [header, lines] of tomlSections(text)) {
    let reqs: string[] = [];
    if (header === 'project') reqs = quotedStrings(lines, 'dependencies');
    // `{ include-group = "test" }` in a dependency group names a group, not a package.
    else if (header === 'project.optional-dependencies' || header === 'dependency-groups' || header === 'tool.pdm.dev-dependencies') reqs = quotedStrings(lines.map((l) => l.replace(/include-group\s*=\s*("[^"]*"|'[^']*')/g, '')));
    else if (header === 'tool.uv') reqs = quotedStrings(lines, 'dev-dependencies');
    else if (/^tool\.poetry(\.group\.[^.]+)?\.(dev-)?dependencies$/.test(header)) {
      out.push(...tableKeys(lines).filter((k) => k !== 'python').flatMap(pyNames));
    }
    for (const r of reqs) {
      const name = requirementName(r);
      if (name) out.push(...pyNames(name));
    }
  }
  return out;
}

function parsePipfile(text: string): string[] {
  const out: string[] = [];
  for (const [header, lines] of tomlSections(text)) {
    if (header === 'packages' || header === 'dev-packages') out.push(...tableKeys(lines).flatMap(pyNames));
  }
  return out;
}

function parseCargoToml(text: string): string[] {
  const out: string[] = [];
  for (const [header, lines] of tomlSections(text)) {
    const dotted = /^(?:target\..+\.|workspace\.)?(?:dev-|build-)?dependencies(?:\.(.+))?$/.exec(header);
    if (!dotted) continue;
    if (dotted[1]) out.push(dotted[1].toLowerCase());
    else out.push(...tableKeys(lines).map((k) => k.toLowerCase()));
  }
  return out;
}

function parseGoMod(text: string): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else if (line) out.push(line.split(/\s+/)[0]!.toLowerCase());
      continue;
    }
    if (/^require\s*\($/.test(line)) inBlock = true;
    else {
      const m = /^require\s+(\S+)/.exec(line);
      if (m) out.push(m[1]!.toLowerCase());
    }
  }
  return out;
}

function parseGemfile(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*gem\s+["']([^"']+)["']/gm)) out.push(m[1]!.toLowerCase());
  return out;
}
