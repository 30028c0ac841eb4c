// Built-in rules: supply family — installing packages the project does not declare, custom package
// indexes, running packages straight from a registry (npx & co.), and global installs.

import type { SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext } from '../rule.ts';
import { argTexts, programName, staticValue } from '../../shell/program.ts';
import { cutText, invocation } from './exec.ts';

// ---------------------------------------------------------------------------------------------------------
// Package names

type Ecosystem = 'npm' | 'python' | 'cargo' | 'gem' | 'go' | 'composer' | 'system' | 'other';

interface PackageRef {
  /** Normalized name for the declared check, or null for a URL / git / unknown source. */
  name: string | null;
  /** As written. */
  spec: string;
  /** A local path (`.`, `./pkg`, `file:…`): installing it adds nothing from outside. */
  local: boolean;
}

function isLocalPath(s: string): boolean {
  return s === '.' || s === '..' || /^(\.{1,2}\/|\/|~\/|file:|link:|workspace:|portal:)/.test(s) || /\.(whl|tgz|tar\.gz|zip|gem|deb|rpm)$/.test(s) && !/^[a-z+]+:\/\//i.test(s);
}

/**
 * The directory or file a local Python requirement names, without its extras: `.[dev]` -> `.`, `./pkg[a,b]` ->
 * `./pkg`, `file:./x` -> `./x`. A URL stays as written (it is not local).
 */
export function localPathOf(spec: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec) || spec.startsWith('git+')) return spec;
  return spec.replace(/^file:(?!\/\/)/, '').replace(/\[[A-Za-z0-9_,.\s-]*\]$/, '');
}

/** `@scope/name@1.2`, `name@^1`, `alias@npm:real@1`, `user/repo` (GitHub), URLs. */
export function npmPackage(spec: string): PackageRef {
  if (isLocalPath(spec)) return { name: null, spec, local: true };
  let s = spec;
  const npmAlias = /^[^@]*@npm:(.+)$/.exec(s) ?? /^@[^/]+\/[^@]+@npm:(.+)$/.exec(s);
  if (npmAlias) s = npmAlias[1]!;
  if (/^[a-z+]+:/i.test(s) || (!s.startsWith('@') && s.includes('/'))) return { name: null, spec, local: false };
  const m = /^(@[^/@\s]+\/[^@\s]+|[^@\s]+)(@.*)?$/.exec(s);
  return { name: m ? m[1]!.toLowerCase() : null, spec, local: false };
}

export function pythonPackage(spec: string): PackageRef {
  if (isLocalPath(spec) || isLocalPath(localPathOf(spec))) return { name: null, spec, local: true };
  if (/^[a-z+]+:\/\//i.test(spec) || spec.startsWith('git+')) return { name: null, spec, local: false };
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec);
  if (!m) return { name: null, spec, local: false };
  return { name: m[1]!.toLowerCase().replace(/[-_.]+/g, '-'), spec, local: false };
}

function plainPackage(spec: string, lower = true): PackageRef {
  if (isLocalPath(spec)) return { name: null, spec, local: true };
  if (/^[a-z+]+:\/\//i.test(spec)) return { name: null, spec, local: false };
  const name = spec.split(/[@=:<>~^ ]/)[0]!;
  return { name: lower ? name.toLowerCase() : name, spec, local: false };
}

/** Is this package one the project declares (package.json, requirements, pyproject, Cargo.toml, go.mod, Gemfile)? */
export function isDeclared(ctx: RuleContext, eco: Ecosystem, name: string | null): boolean {
  if (name === null) return false;
  const declared = ctx.declaredPackages();
  if (!declared) return false;
  if (declared.has(name)) return true;
  if (eco === 'python') {
    for (const d of declared) if (d.replace(/[-_.]+/g, '-') === name) return true;
  }
  if (eco === 'go') {
    for (const d of declared) if (name === d || name.startsWith(`${d}/`)) return true;
  }
  if (eco === 'cargo') return declared.has(name.replace(/_/g, '-')) || declared.has(name.replace(/-/g, '_'));
  return false;
}

/** Command names of common dev tools -> the npm package that provides them (for `npx <bin>`). */
export const NPM_BINS: Readonly<Record<string, string>> = {
  tsc: 'typescript', tsserver: 'typescript', playwright: '@playwright/test', biome: '@biomejs/biome', babel: '@babel/cli',
  swc: '@swc/cli', 'vue-cli-service': '@vue/cli-service', ng: '@angular/cli', 'svelte-kit': '@sveltejs/kit',
  changeset: '@changesets/cli', commitlint: '@commitlint/cli', 'api-extractor': '@microsoft/api-extractor',
  'graphql-codegen': '@graphql-codegen/cli', gql: '@graphql-codegen/cli', sequelize: 'sequelize-cli',
  netlify: 'netlify-cli', firebase: 'firebase-tools', cdk: 'aws-cdk', markdownlint: 'markdownlint-cli',
  'markdownlint-cli2': 'markdownlint-cli2', remix: '@remix-run/dev', docusaurus: '@docusaurus/core', nuxi: 'nuxi',
  nuxt: 'nuxt', 'ts-node': 'ts-node', tsx: 'tsx', vitest: 'vitest', jest: 'jest', eslint: 'eslint', prettier: 'prettier',
  rimraf: 'rimraf', 'cross-env': 'cross-env', dotenv: 'dotenv-cli', c8: 'c8', nyc: 'nyc', mocha: 'mocha',
  'lint-staged': 'lint-staged', husky: 'husky', esbuild: 'esbuild', vite: 'vite', webpack: 'webpack-cli',
  rollup: 'rollup', turbo: 'turbo', nx: 'nx', lerna: 'lerna', next: 'next', astro: 'astro', prisma: 'prisma',
  'drizzle-kit': 'drizzle-kit', wrangler: 'wrangler', vercel: 'vercel', storybook: 'storybook', cypress: 'cypress',
  tailwindcss: 'tailwindcss', postcss: 'postcss-cli', stylelint: 'stylelint', oxlint: 'oxlint', knip: 'knip',
  'size-limit': 'size-limit', typedoc: 'typedoc', 'react-scripts': 'react-scripts', expo: 'expo',
  'electron-builder': 'electron-builder', electron: 'electron', nodemon: 'nodemon', concurrently: 'concurrently',
  'npm-run-all': 'npm-run-all', 'run-s': 'npm-run-all', 'run-p': 'npm-run-all', tsup: 'tsup', unbuild: 'unbuild',
  'semantic-release': 'semantic-release', 'json-server': 'json-server', pm2: 'pm2', serve: 'serve',
  'http-server': 'http-server', ava: 'ava', sass: 'sass', lessc: 'less', jsdoc: 'jsdoc', madge: 'madge',
  depcheck: 'depcheck', 'openapi-typescript': 'openapi-typescript', 'tsc-alias': 'tsc-alias', dprint: 'dprint',
  'sort-package-json': 'sort-package-json', syncpack: 'syncpack', 'ts-prune': 'ts-prune', 'license-checker': 'license-checker',
};

/** The npm package a bin name (or a package spec) refers to, for the declared check. */
export function npmNameForBin(bin: string): string {
  const p = npmPackage(bin).name ?? bin;
  return Object.hasOwn(NPM_BINS, p) ? NPM_BINS[p]! : p;
}

/** True when `npx <bin>` runs a tool of the project (its package, or the package behind the bin, is declared). */
export function npmBinDeclared(ctx: RuleContext, bin: string): boolean {
  const ref = npmPackage(bin);
  if (ref.name === null) return false;
  return isDeclared(ctx, 'npm', ref.name) || isDeclared(ctx, 'npm', npmNameForBin(ref.name));
}

// ---------------------------------------------------------------------------------------------------------
// Recognising install commands

export interface InstallCommand {
  eco: Ecosystem;
  tool: string;
  packages: PackageRef[];
  global: boolean;
  /** Index/registry URLs or hosts named on the command line or in its environment. */
  indexes: string[];
  dryRun: boolean;
}

const NPM_INSTALL = new Set(['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add']);
const NPM_VALUE_OPTS = new Set(['prefix', 'C', 'w', 'workspace', 'registry', 'loglevel', 'userconfig', 'cache', 'tag', 'omit', 'include', 'before', 'install-strategy', 'save-prefix', 'otp', 'scope', 'globalconfig', 'script-shell', 'node-options', 'cwd', 'filter', 'F', 'dir', 'modules-folder', 'network-timeout', 'mutex', 'cache-folder', 'global-folder', 'link-folder', 'config']);

interface Parsed { ops: string[]; opsWords: Word[]; flags: Map<string, string | true> }

/** Options and operands of a package-manager command (value options listed per tool). */
function parsePm(words: readonly Word[], valueOpts: ReadonlySet<string>): Parsed {
  const ops: string[] = [];
  const opsWords: Word[] = [];
  const flags = new Map<string, string | true>();
  let done = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = staticValue(w) ?? w.value;
    if (done || v.length < 2 || !v.startsWith('-')) {
      ops.push(v);
      opsWords.push(w);
      continue;
    }
    if (v === '--') { done = true; continue; }
    const long = v.startsWith('--');
    const body = long ? v.slice(2) : v.slice(1);
    const eq = body.indexOf('=');
    if (eq >= 0) { flags.set(body.slice(0, eq), body.slice(eq + 1)); continue; }
    if (valueOpts.has(body) && i + 1 < words.length) { flags.set(body, staticValue(words[i + 1]) ?? words[i + 1]!.value); i++; continue; }
    if (!long && body.length > 1 && !valueOpts.has(body)) { for (const c of body) flags.set(c, true); continue; }
    flags.set(body, true);
  }
  return { ops, opsWords, flags };
}

const PIP_VALUE_OPTS = new Set(['r', 'requirement', 'c', 'constraint', 'e', 'editable', 'i', 'index-url', 'extra-index-url', 'f', 'find-links', 'trusted-host', 't', 'target', 'prefix', 'root', 'src', 'platform', 'python-version', 'implementation', 'abi', 'no-binary', 'only-binary', 'progress-bar', 'log', 'cache-dir', 'proxy', 'timeout', 'retries', 'exists-action', 'cert', 'client-cert', 'upgrade-strategy', 'config-settings', 'C', 'global-option', 'install-option', 'report', 'python', 'index', 'default-index', 'group', 'extra', 'optional', 'p', 'directory', 'project', 'with', 'from', 'spec', 'source']);
const GEM_VALUE_OPTS = new Set(['v', 'version', 'source', 's', 'i', 'install-dir', 'n', 'bindir', 'platform', 'g', 'file']);
const CARGO_VALUE_OPTS = new Set(['version', 'vers', 'git', 'branch', 'tag', 'rev', 'path', 'root', 'index', 'registry', 'features', 'F', 'bin', 'example', 'target', 'target-dir', 'j', 'jobs', 'package', 'p', 'rename', 'manifest-path', 'profile', 'config', 'Z']);
const SYSTEM_VALUE_OPTS = new Set(['o', 'option', 't', 'target-release', 'c', 'config-file', 'root', 'installroot', 'repo', 'enablerepo', 'disablerepo', 'X', 'r', 'repository']);

/** What a package-manager command installs, or null when it installs nothing (or is not one). */
export function installCommand(cmd: SimpleCommand): InstallCommand | null {
  const name = programName(cmd);
  if (name === null) return null;
  const args = cmd.argv.slice(1);
  const ic = (eco: Ecosystem, tool: string, packages: PackageRef[], p: Parsed, extra: Partial<InstallCommand> = {}): InstallCommand => ({
    eco, tool, packages, global: false, indexes: [], dryRun: p.flags.has('dry-run') || p.flags.has('n') && eco === 'system', ...extra,
  });
  const base = /^(python|pip)\d[\d.]*$/.test(name) ? name.replace(/[\d.]+$/, '') : name;
  switch (base) {
    case 'npm': {
      const p = parsePm(args, NPM_VALUE_OPTS);
      const sub = p.ops[0];
      if (sub === undefined || !NPM_INSTALL.has(sub)) return null;
      const g = p.flags.has('g') || p.flags.has('global') || p.flags.get('location') === 'global';
      return ic('npm', 'npm', p.ops.slice(1).map(npmPackage), p, { global: g });
    }
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const p = parsePm(args, NPM_VALUE_OPTS);
      let ops = p.ops;
      let g = p.flags.has('g') || p.flags.has('global');
      if (name === 'yarn' && ops[0] === 'global') { g = true; ops = ops.slice(1); }
      const sub = ops[0];
      if (sub === undefined) return null;
      const isAdd = sub === 'add' || ((name === 'pnpm' || name === 'bun') && (sub === 'install' || sub === 'i'));
      if (!isAdd && !(name === 'yarn' && (sub === 'up' || sub === 'upgrade')) && !(name === 'pnpm' && (sub === 'update' || sub === 'up'))) return null;
      const pkgs = ops.slice(1).map(npmPackage);
      if (pkgs.length === 0 && !g) return null;
      return ic('npm', name, pkgs, p, { global: g });
    }
    case 'pip':
    case 'pip3':
    case 'pipx':
    case 'uv':
    case 'poetry':
    case 'pdm':
    case 'rye':
    case 'conda':
    case 'mamba':
    case 'micromamba':
    case 'pixi':
    case 'python':
    case 'python3':
      return pythonInstall(cmd, base);
    case 'cargo': {
      const p = parsePm(args, CARGO_VALUE_OPTS);
      const sub = p.ops[0];
      if (sub !== 'add' && sub !== 'install') return null;
      if (p.flags.has('path') || (sub === 'install' && p.ops.length === 1 && !p.flags.has('git'))) return null;
      const pkgs = p.ops.slice(1).map((s) => plainPackage(s));
      if (p.flags.has('git')) pkgs.push({ name: null, spec: String(p.flags.get('git')), local: false });
      const idx = [p.flags.get('index')].filter((x): x is string => typeof x === 'string');
      return ic('cargo', `cargo ${sub}`, pkgs, p, { global: sub === 'install', indexes: idx });
    }
    case 'gem': {
      const p = parsePm(args, GEM_VALUE_OPTS);
      if (p.ops[0] !== 'install' && p.ops[0] !== 'i') return null;
      const src = p.flags.get('source') ?? p.flags.get('s');
      return ic('gem', 'gem install', p.ops.slice(1).map((s) => plainPackage(s)), p, { indexes: typeof src === 'string' ? [src] : [], global: !p.flags.has('user-install') });
    }
    case 'bundle': {
      const p = parsePm(args, new Set(['version', 'v', 'source', 'group', 'git', 'branch', 'path', 'require']));
      if (p.ops[0] !== 'add') return null;
      return ic('gem', 'bundle add', p.ops.slice(1).map((s) => plainPackage(s)), p);
    }
    case 'go': {
      const p = parsePm(args, new Set(['C', 'modfile', 'o', 'tags', 'ldflags', 'gcflags', 'p']));
      const sub = p.ops[0];
      if (sub !== 'install' && sub !== 'get') return null;
      const pkgs = p.ops.slice(1).map((s) => (isLocalPath(s) || s.startsWith('./') || s === './...' ? { name: null, spec: s, local: true } : { name: s.split('@')[0]!.toLowerCase(), spec: s, local: false }));
      if (pkgs.every((x) => x.local)) return null;
      return ic('go', `go ${sub}`, pkgs, p, { global: sub === 'install' });
    }
    case 'composer': {
      const p = parsePm(args, new Set(['d', 'working-dir']));
      let ops = p.ops;
      let g = false;
      if (ops[0] === 'global') { g = true; ops = ops.slice(1); }
      if (ops[0] !== 'require' && ops[0] !== 'req') return null;
      return ic('composer', 'composer require', ops.slice(1).map((s) => plainPackage(s.split(':')[0]!)), p, { global: g });
    }
    case 'dotnet': {
      const p = parsePm(args, new Set(['v', 'version', 's', 'source', 'f', 'framework', 'tool-path', 'configfile', 'add-source']));
      const src = p.flags.get('source') ?? p.flags.get('s') ?? p.flags.get('add-source');
      const idx = typeof src === 'string' ? [src] : [];
      if (p.ops[0] === 'add' && p.ops.includes('package')) return ic('other', 'dotnet add package', [plainPackage(p.ops[p.ops.indexOf('package') + 1] ?? '')], p, { indexes: idx });
      if (p.ops[0] === 'tool' && (p.ops[1] === 'install' || p.ops[1] === 'update')) return ic('other', 'dotnet tool install', p.ops.slice(2).map((s) => plainPackage(s)), p, { global: p.flags.has('g') || p.flags.has('global'), indexes: idx });
      return null;
    }
    case 'deno': {
      const p = parsePm(args, new Set(['config', 'c', 'import-map', 'root', 'name', 'n']));
      if (p.ops[0] === 'add' || (p.ops[0] === 'install' && p.ops.length > 1)) return ic('npm', `deno ${p.ops[0]}`, p.ops.slice(1).map((s) => npmPackage(s.replace(/^(npm|jsr):/, ''))), p, { global: p.flags.has('g') || p.flags.has('global') });
      return null;
    }
    case 'brew': {
      const p = parsePm(args, new Set());
      if (!['install', 'reinstall', 'upgrade'].includes(p.ops[0] ?? '') || p.ops.length < 2) return null;
      return ic('system', `brew ${p.ops[0]}`, p.ops.slice(1).map((s) => plainPackage(s)), p, { global: true });
    }
    case 'apt':
    case 'apt-get':
    case 'aptitude':
    case 'dnf':
    case 'yum':
    case 'zypper':
    case 'apk':
    case 'port':
    case 'snap':
    case 'flatpak':
    case 'choco':
    case 'winget':
    case 'scoop':
    case 'pkg':
    case 'emerge':
    case 'xbps-install':
    case 'opkg':
    case 'nix-env':
    case 'pacman':
    case 'yay':
    case 'paru':
    case 'luarocks':
    case 'cpanm':
    case 'cpan':
    case 'opam':
    case 'cabal':
    case 'stack':
    case 'code':
    case 'nix': {
      const p = parsePm(args, SYSTEM_VALUE_OPTS);
      const sub = p.ops[0] ?? '';
      let pkgs: string[] = [];
      if (name === 'pacman' || name === 'yay' || name === 'paru') {
        const sync = [...p.flags.keys()].some((k) => k === 'S' || k === 'sync' || k === 'U' || k === 'upgrade') && !p.flags.has('s') && !p.flags.has('search') && !p.flags.has('i') && !p.flags.has('info');
        if (!sync) return null;
        pkgs = p.ops;
      } else if (name === 'nix-env') {
        if (!p.flags.has('i') && !p.flags.has('install') && !p.flags.has('iA')) return null;
        pkgs = p.ops;
      } else if (name === 'nix') {
        if (!(sub === 'profile' && p.ops[1] === 'install')) return null;
        pkgs = p.ops.slice(2);
      } else if (name === 'cpanm' || name === 'cpan') {
        pkgs = p.ops;
      } else if (name === 'code') {
        const ext = p.flags.get('install-extension');
        if (typeof ext !== 'string') return null;
        pkgs = [ext];
      } else if (name === 'apk') {
        if (sub !== 'add') return null;
        pkgs = p.ops.slice(1);
      } else {
        if (!/^(install|in|add|reinstall)$/.test(sub)) return null;
        pkgs = p.ops.slice(1);
      }
      if (pkgs.length === 0) return null;
      return ic('system', `${name} install`, pkgs.map((s) => plainPackage(s)), p, { global: true, dryRun: p.flags.has('dry-run') || p.flags.has('simulate') || p.flags.has('s') && name.startsWith('apt') });
    }
    default:
      return null;
  }
}

function pythonInstall(cmd: SimpleCommand, name: string): InstallCommand | null {
  let args = cmd.argv.slice(1);
  let tool = name;
  if (name === 'python' || name === 'python3') {
    const inv = invocation(cmd);
    if (!inv || inv.module !== 'pip') return null;
    args = inv.rest;
    tool = 'python -m pip';
  }
  const p = parsePm(args, PIP_VALUE_OPTS);
  let ops = p.ops;
  let global = p.flags.has('user') || p.flags.has('break-system-packages');
  if (name === 'uv' && ops[0] === 'pip') { ops = ops.slice(1); tool = 'uv pip'; }
  else if (name === 'uv' && ops[0] === 'tool' && ops[1] === 'install') { ops = ['install', ...ops.slice(2)]; tool = 'uv tool'; global = true; }
  const sub = ops[0];
  const viaSudo = cmd.via.some((v) => v.startsWith('sudo') || v.startsWith('doas'));
  const indexes: string[] = [];
  for (const k of ['i', 'index-url', 'extra-index-url', 'f', 'find-links', 'trusted-host', 'index', 'default-index']) {
    const v = p.flags.get(k);
    if (typeof v === 'string' && (k !== 'f' && k !== 'find-links' || /^[a-z]+:\/\//i.test(v))) indexes.push(v);
  }
  if (['conda', 'mamba', 'micromamba'].includes(name)) {
    const ch = p.flags.get('c') ?? p.flags.get('channel');
    if (typeof ch === 'string' && !/^(conda-forge|defaults|bioconda|pytorch|nvidia|anaconda|main|r)$/.test(ch)) indexes.push(ch);
  }
  const installing = sub === 'install' || sub === 'add' || (name === 'pipx' && sub === 'install') || (name === 'pixi' && sub === 'add');
  if (!installing) {
    // `pip config set global.index-url …` is handled by supply.custom-index; nothing installed here.
    return null;
  }
  if (name === 'poetry' && sub === 'install') return null; // installs the lock file
  if ((name === 'pdm' || name === 'rye') && sub === 'install') return null;
  const pkgs = ops.slice(1).map(pythonPackage);
  const editable = p.flags.get('e') ?? p.flags.get('editable');
  if (typeof editable === 'string') pkgs.push(pythonPackage(editable));
  if (pkgs.length === 0) return null;
  return {
    eco: 'python', tool: `${tool} ${sub}`, packages: pkgs, global: global || viaSudo || name === 'pipx',
    indexes, dryRun: p.flags.has('dry-run'),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The rules

/** Versioned python/pip names, so `python3.12 -m pip install x` and `pip3.11 install x` reach the rules. */
const VERSIONED_PY = ['8', '9', '10', '11', '12', '13', '14'].flatMap((m) => [`python3.${m}`, `pip3.${m}`]);

const installUndeclared = defineShellRule({
  id: 'supply.install-undeclared',
  // soft: installing a package the project does not declare runs its install scripts and trusts its
  // author; typosquats and hallucinated names are a real attack on agents. Installing what the manifest
  // already lists (`npm install`, `pip install -r requirements.txt`) is allowed.
  tier: 'soft_deny',
  reason: 'This installs a package the project does not declare, which runs its install scripts; check the name and ask the user, or add it to the manifest first.',
  programs: [
    'npm', 'pnpm', 'yarn', 'bun', 'pip', 'pip3', 'pipx', 'uv', 'poetry', 'pdm', 'rye', 'conda', 'mamba', 'micromamba', 'pixi',
    'cargo', 'gem', 'bundle', 'go', 'composer', 'dotnet', 'deno', 'brew', 'apt', 'apt-get', 'aptitude', 'dnf', 'yum',
    'zypper', 'apk', 'port', 'snap', 'flatpak', 'choco', 'winget', 'scoop', 'pkg', 'emerge', 'xbps-install', 'opkg',
    'nix-env', 'nix', 'pacman', 'yay', 'paru', 'luarocks', 'cpanm', 'cpan', 'opam', 'cabal', 'stack', 'code', 'python',
    'python3', ...VERSIONED_PY,
  ],
  examples: {
    match: ['npm install left-padd', 'npm i -D some-new-lib@2', 'pip install requets', 'pip3 install "flask>=2"', 'python3 -m pip install colorama', 'uv add httpx', 'poetry add rich', 'cargo add serde_jsonn', 'cargo install ripgrep', 'gem install rails', 'go install github.com/x/tool@latest', 'yarn add lodash', 'pnpm add zod', 'brew install jq', 'apt-get install -y nmap', 'pip install git+https://github.com/x/y'],
    notMatch: ['npm install', 'npm ci', 'pip install -r requirements.txt', 'pip install -e .', 'poetry install', 'cargo build', 'yarn', 'go install ./...', 'npm install ../shared-lib', 'apt-get install --dry-run nmap'],
  },
  match(cmd, ctx) {
    const ic = installCommand(cmd);
    if (!ic || ic.dryRun) return null;
    const undeclared = ic.packages.filter((p) => !p.local && !isDeclared(ctx, ic.eco, p.name));
    if (undeclared.length === 0) return null;
    const names = undeclared.map((p) => p.spec).join(', ');
    return { subject: cutText(names, 60), reason: `\`${ic.tool}\` installs ${cutText(names, 60)}, which the project does not declare, and runs its install scripts; check the name (typosquats) and ask the user, or add it to the manifest first.` };
  },
});

const OFFICIAL_INDEX_HOSTS = new Set([
  'pypi.org', 'pypi.python.org', 'files.pythonhosted.org', 'registry.npmjs.org', 'registry.yarnpkg.com', 'registry.npmjs.com',
  'crates.io', 'index.crates.io', 'static.crates.io', 'rubygems.org', 'proxy.golang.org', 'sum.golang.org',
  'repo.maven.apache.org', 'repo1.maven.org', 'download.pytorch.org', 'conda.anaconda.org', 'repo.anaconda.com',
  'api.nuget.org', 'jsr.io', 'registry.bun.sh', 'direct', 'off',
]);

const PACKAGE_MANAGERS = new Set([
  'npm', 'pnpm', 'yarn', 'bun', 'npx', 'pnpx', 'bunx', 'pip', 'pip3', 'pipx', 'uv', 'uvx', 'poetry', 'pdm', 'rye', 'conda',
  'mamba', 'micromamba', 'pixi', 'cargo', 'gem', 'bundle', 'go', 'composer', 'dotnet', 'nuget', 'deno', 'brew',
  'add-apt-repository', 'apt-add-repository', 'dnf', 'yum', 'zypper', 'python', 'python3', 'easy_install',
]);

const INDEX_ENV = /^(GOPROXY|GONOSUMDB|GONOSUMCHECK|GOINSECURE|GOSUMDB|GOFLAGS|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_TRUSTED_HOST|PIP_FIND_LINKS|UV_INDEX_URL|UV_EXTRA_INDEX_URL|UV_INDEX|UV_DEFAULT_INDEX|NPM_CONFIG_REGISTRY|npm_config_registry|YARN_REGISTRY|YARN_NPM_REGISTRY_SERVER|BUN_CONFIG_REGISTRY|CARGO_REGISTRIES_\w+_INDEX|CARGO_REGISTRY_DEFAULT|POETRY_REPOSITORIES_\w+_URL|GEM_SOURCE|BUNDLE_MIRROR__\w+|COMPOSER_REPOSITORY)$/;

/** An index value that is neither official, local nor allowed. */
function untrustedIndex(v: string, ctx: RuleContext): boolean {
  const first = v.split(/[,|\s]+/).filter((x) => x !== '');
  for (const item of first) {
    const u = item.replace(/^[\w-]+=(?=[a-z]+:\/\/)/i, ''); // uv `--index name=https://…`
    if (/^(off|direct|on|1|0|true|false)$/i.test(u)) {
      continue;
    }
    const info = ctx.url(u);
    if (info.host !== null && (OFFICIAL_INDEX_HOSTS.has(info.host) || info.classes.has('allowed') || info.classes.has('local'))) continue;
    return true;
  }
  return false;
}

function customIndexOf(cmd: SimpleCommand, ctx: RuleContext): string | null {
  // Index variables count on any command (`GOPROXY=… make deps`).
  for (const a of cmd.assignments) {
    if (!INDEX_ENV.test(a.name)) continue;
    const v = staticValue(a.value) ?? a.value.value;
    if (a.name === 'GOSUMDB' && /^off$/i.test(v)) return `GOSUMDB=off`;
    if (a.name === 'GOFLAGS' && !/-insecure/.test(v)) continue;
    if (a.name === 'GOINSECURE' || a.name === 'GONOSUMDB' || a.name === 'GONOSUMCHECK' || a.name === 'PIP_TRUSTED_HOST') return `${a.name}=${v}`;
    if (untrustedIndex(v, ctx)) return `${a.name}=${v}`;
  }
  const name = programName(cmd);
  if (name === null || !PACKAGE_MANAGERS.has(name)) return null;
  const args = argTexts(cmd);
  const ic = installCommand(cmd);
  for (const idx of ic?.indexes ?? []) if (untrustedIndex(idx, ctx)) return idx;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const val = (opt: string): string | null => (a === opt ? args[i + 1] ?? null : a.startsWith(`${opt}=`) ? a.slice(opt.length + 1) : null);
    for (const opt of ['--registry', '--index-url', '--extra-index-url', '--index', '--default-index', '--source']) {
      const v = val(opt);
      if (v !== null && untrustedIndex(v, ctx)) return `${opt} ${v}`;
    }
    const th = val('--trusted-host');
    if (th !== null) return `--trusted-host ${th}`;
    if (a === '-i' && (name.startsWith('pip') || name === 'uv' || name.startsWith('python')) && args[i + 1] && /^[a-z]+:\/\//i.test(args[i + 1]!) && untrustedIndex(args[i + 1]!, ctx)) return `-i ${args[i + 1]}`;
  }
  const ops = args.filter((a) => !a.startsWith('-'));
  const sub = ops.slice(0, 3).join(' ');
  // npm/yarn/pnpm config set registry URL; pip config set global.index-url URL; go env -w GOPROXY=…
  const cfg = /^(?:config set|set) (registry|@[\w-]+:registry|npmRegistryServer|npmScopes\.\S+|global\.index-url|global\.extra-index-url|global\.trusted-host|install\.index-url|install\.extra-index-url|repositories\.\S+)\b/.exec(ops.join(' '));
  if (cfg && ['npm', 'yarn', 'pnpm', 'bun', 'pip', 'pip3', 'poetry'].includes(name)) {
    const value = ops[cfg[0].split(' ').length] ?? args.find((x) => x.includes('://')) ?? '';
    if (/trusted-host/.test(cfg[1]!) || value === '' || untrustedIndex(value.replace(/^[^=]*=(?=[a-z]+:)/i, ''), ctx)) return `${name} ${cfg[0]} ${value}`.trim();
  }
  if (name === 'poetry' && sub.startsWith('source add')) return `poetry ${ops.slice(0, 4).join(' ')}`;
  if (name === 'go' && ops[0] === 'env' && args.includes('-w')) {
    for (const kv of ops.slice(1)) {
      const m = /^(GOPROXY|GONOSUMDB|GOINSECURE|GOSUMDB|GOFLAGS|GONOSUMCHECK)=(.*)$/.exec(kv);
      if (!m) continue;
      if (m[1] === 'GOSUMDB' && /^off$/i.test(m[2]!)) return kv;
      if (m[1] === 'GOFLAGS' && !/-insecure/.test(m[2]!)) continue;
      if (m[1] !== 'GOPROXY' || untrustedIndex(m[2]!, ctx)) return kv;
    }
  }
  if (name === 'gem' && ops[0] === 'sources' && (args.includes('--add') || args.includes('-a'))) return `gem sources --add`;
  if (name === 'brew' && ops[0] === 'tap' && ops[1] && !/^homebrew\//i.test(ops[1])) return `brew tap ${ops[1]}`;
  if ((name === 'add-apt-repository' || name === 'apt-add-repository') && ops.length > 0) return `${name} ${ops[0]}`;
  if (name === 'dnf' && args.includes('config-manager') && args.some((x) => x === '--add-repo' || x.startsWith('--add-repo='))) return 'dnf config-manager --add-repo';
  if (name === 'zypper' && (ops[0] === 'ar' || ops[0] === 'addrepo')) return `zypper ${ops[0]}`;
  if ((name === 'conda' || name === 'mamba') && ops[0] === 'config' && args.includes('--add') && args.includes('channels')) {
    const ch = args[args.indexOf('channels') + 1];
    if (ch && !/^(conda-forge|defaults|bioconda|pytorch|nvidia)$/.test(ch)) return `conda config --add channels ${ch}`;
  }
  return null;
}

const customIndex = defineShellRule({
  id: 'supply.custom-index',
  // customIndexOf reads index variables among the assignments, then only PACKAGE_MANAGERS.
  needs: { traits: ['assignment'], programs: [...PACKAGE_MANAGERS] },
  // soft: pointing a package manager at another index or registry (or disabling its checksum database)
  // changes who supplies every later install; corporate mirrors are legitimate and belong in allowedDomains.
  tier: 'soft_deny',
  reason: 'This points a package manager at an index or registry the policy does not know (or turns off its checksums); add the host to allowedDomains if it is your mirror, or ask the user.',
  examples: {
    match: [
      'pip install --index-url https://pypi.evil.example/simple requests',
      'pip install --extra-index-url https://mirror.example.net/simple foo',
      'npm install --registry https://registry.example.net foo',
      'npm config set registry https://registry.example.net',
      'pip config set global.index-url https://mirror.example.net/simple',
      'GOPROXY=https://proxy.example.net go get example.com/x',
      'go env -w GOSUMDB=off',
      'pip install --trusted-host mirror.example.net foo',
      'brew tap someone/tools',
    ],
    notMatch: ['pip install --index-url https://download.pytorch.org/whl/cu121 torch', 'npm install --registry https://registry.npmjs.org', 'npm install', 'npm config get registry', 'pip install -i https://api.example-corp.com/simple foo', 'git restore --source HEAD~1 file.txt'],
  },
  match(cmd, ctx) {
    const hit = customIndexOf(cmd, ctx);
    return hit ? { subject: cutText(hit) } : null;
  },
});

/** `npx pkg`, `pnpm dlx pkg`, `yarn dlx`, `bunx`, `uvx`, `pipx run`, `npm exec`, `npm init x`, `go run pkg@v`, `deno run <url>`. */
export interface RemoteRun {
  tool: string;
  /** The packages it fetches and runs (names as written). */
  packages: string[];
  /** npm ecosystem (names are npm packages / bins). */
  eco: 'npm' | 'python' | 'go' | 'deno';
  /** `npx -c '…'`: a shell string runs too. */
  shellString: boolean;
}

const NPX_VALUE = new Set(['p', 'package', 'c', 'call', 'registry', 'cache', 'userconfig', 'w', 'workspace', 'prefix', 'C', 'shell-mode', 'node-options']);

/**
 * What an npx-style runner fetches. `npx`, `pnpx`, `bunx`, `pnpm dlx`, `yarn dlx` and `bun x` read their own options
 * only before the first operand: everything after the package belongs to the program (`npx tsc -p tsconfig.json`
 * hands `-p` to tsc; npm's npx inserts `--` before the first operand). `npm exec` reads npm options anywhere
 * before `--`, so there every `--package`/`-p` counts. Every package option counts, not the last one:
 * `npx -p evil -p typescript tsc` fetches both.
 */
function npxFetches(words: readonly Word[], tool: string, optionsAnywhere: boolean): RemoteRun | null {
  const packages: string[] = [];
  let shellString = false;
  let first: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const v = staticValue(words[i]) ?? words[i]!.value;
    if (v === '--') {
      if (first === undefined && i + 1 < words.length) first = staticValue(words[i + 1]) ?? words[i + 1]!.value;
      break;
    }
    if (v.length < 2 || !v.startsWith('-')) {
      if (first === undefined) first = v;
      if (!optionsAnywhere) break;
      continue;
    }
    const opts: Array<[string, string | undefined]> = [];
    if (v.startsWith('--')) {
      const body = v.slice(2);
      const eq = body.indexOf('=');
      if (eq >= 0) opts.push([body.slice(0, eq), body.slice(eq + 1)]);
      else opts.push([body, NPX_VALUE.has(body) && i + 1 < words.length ? (staticValue(words[++i]) ?? words[i]!.value) : undefined]);
    } else {
      // A short cluster, as nopt reads it: `-yp evil` is `-y -p evil`, `-ptypescript` is `-p typescript`.
      const body = v.slice(1);
      for (let k = 0; k < body.length; k++) {
        const c = body[k]!;
        if (!NPX_VALUE.has(c)) { opts.push([c, undefined]); continue; }
        const attached = body.slice(k + 1).replace(/^=/, '');
        opts.push([c, attached !== '' ? attached : i + 1 < words.length ? (staticValue(words[++i]) ?? words[i]!.value) : undefined]);
        break;
      }
    }
    for (const [key, value] of opts) {
      if (key === 'p' || key === 'package') packages.push(value ?? '');
      else if (key === 'c' || key === 'call' || key === 'shell-mode') shellString = true;
    }
  }
  if (packages.length === 0 && first !== undefined) packages.push(first);
  if (packages.length === 0 && !shellString) return null;
  return { tool, packages, eco: 'npm', shellString };
}

export function remoteRun(cmd: SimpleCommand): RemoteRun | null {
  const name = programName(cmd);
  if (name === null) return null;
  const args = cmd.argv.slice(1);
  switch (name) {
    case 'npx':
    case 'pnpx':
    case 'bunx':
      return npxFetches(args, name, false);
    case 'npm': {
      const p = parsePm(args, NPM_VALUE_OPTS);
      const sub = p.ops[0];
      const i = args.findIndex((w) => w.value === sub);
      if (sub === 'exec' || sub === 'x') return npxFetches(args.slice(i + 1), 'npm exec', true);
      if ((sub === 'init' || sub === 'create' || sub === 'innit') && p.ops[1]) return { tool: `npm ${sub}`, packages: [initializer(p.ops[1])], eco: 'npm', shellString: false };
      return null;
    }
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const p = parsePm(args, NPM_VALUE_OPTS);
      const sub = p.ops[0];
      const i = args.findIndex((w) => w.value === sub);
      if (sub === 'dlx' || (name === 'bun' && sub === 'x')) return npxFetches(args.slice(i + 1), `${name} ${sub}`, false);
      if (sub === 'create' && p.ops[1]) return { tool: `${name} create`, packages: [initializer(p.ops[1])], eco: 'npm', shellString: false };
      return null;
    }
    case 'uvx':
    case 'pipx':
    case 'uv': {
      let rest = args;
      if (name === 'pipx') { if (staticValue(args[0]) !== 'run') return null; rest = args.slice(1); }
      if (name === 'uv') { if (staticValue(args[0]) !== 'tool' || staticValue(args[1]) !== 'run') return null; rest = args.slice(2); }
      const p = parsePm(rest, new Set(['from', 'with', 'spec', 'python', 'p', 'index', 'index-url']));
      const from = p.flags.get('from') ?? p.flags.get('spec');
      const pk = typeof from === 'string' ? from : p.ops[0];
      return pk ? { tool: name === 'uv' ? 'uv tool run' : name === 'pipx' ? 'pipx run' : 'uvx', packages: [pk], eco: 'python', shellString: false } : null;
    }
    case 'go': {
      if (staticValue(args[0]) !== 'run') return null;
      const pkg = args.slice(1).map((w) => staticValue(w) ?? w.value).find((v) => !v.startsWith('-'));
      if (!pkg || !pkg.includes('@') || isLocalPath(pkg)) return null;
      return { tool: 'go run', packages: [pkg], eco: 'go', shellString: false };
    }
    case 'deno': {
      const inv = invocation(cmd);
      const s = inv?.script ? staticValue(inv.script) : null;
      if (s && /^(https?:|npm:|jsr:)/.test(s)) return { tool: 'deno run', packages: [s], eco: 'deno', shellString: false };
      return null;
    }
    default:
      return null;
  }
}

/** `npm init vite` runs `create-vite`; `npm init @scope/x` runs `@scope/create-x`. */
function initializer(spec: string): string {
  const ref = npmPackage(spec);
  if (ref.name === null) return spec;
  if (ref.name.startsWith('@')) {
    const [scope, rest] = ref.name.split('/');
    return rest ? `${scope}/create-${rest}` : `${scope}/create`;
  }
  return ref.name.startsWith('create-') ? ref.name : `create-${ref.name}`;
}

/** True when everything a remote run fetches is declared by the project. */
export function remoteRunDeclared(r: RemoteRun, ctx: RuleContext): boolean {
  if (r.shellString) return false;
  return r.packages.every((p) => {
    if (r.eco === 'npm') return npmBinDeclared(ctx, p);
    if (r.eco === 'python') return isDeclared(ctx, 'python', pythonPackage(p).name);
    if (r.eco === 'go') return isDeclared(ctx, 'go', p.split('@')[0]!.toLowerCase());
    return false;
  });
}

const npxUnknown = defineShellRule({
  id: 'supply.npx-unknown',
  // soft: npx/dlx/uvx/pipx run/`npm init x` fetch a package from the registry and run it at once, with no
  // lock file and no review; `-y` only skips the prompt. Tools the project declares are allowed.
  tier: 'soft_deny',
  reason: 'This downloads a package the project does not declare and runs it at once; check the name and ask the user, or add it as a dev dependency.',
  programs: ['npx', 'pnpx', 'bunx', 'npm', 'pnpm', 'yarn', 'bun', 'uvx', 'pipx', 'uv', 'go', 'deno'],
  examples: {
    match: ['npx -y cowsay hi', 'npx create-react-app my-app', 'pnpm dlx degit user/repo', 'yarn dlx some-tool', 'bunx some-tool', 'uvx ruff check', 'pipx run black .', 'npm init vite@latest app', 'go run github.com/x/tool@latest', 'deno run https://deno.land/x/tool/mod.ts', 'npm exec --package=left-pad -- left-pad'],
    notMatch: ['npm run build', 'npx --version', 'go run ./cmd/server', 'deno run main.ts'],
  },
  match(cmd, ctx) {
    const r = remoteRun(cmd);
    if (!r || remoteRunDeclared(r, ctx)) return null;
    if (r.packages.length === 1 && /^-/.test(r.packages[0]!)) return null;
    const what = r.shellString ? 'a shell string' : r.packages.join(', ');
    return { subject: cutText(what), reason: `\`${r.tool}\` downloads ${cutText(what, 60)}, which the project does not declare, and runs it at once; check the name and ask the user, or add it as a dev dependency.` };
  },
});

const globalInstall = defineShellRule({
  id: 'supply.global-install',
  // soft: global installs change the user's machine outside the project (and `sudo pip` or
  // --break-system-packages can break the system's own tools).
  tier: 'soft_deny',
  reason: 'This installs globally, changing the user\'s machine outside the project; install into the project (dev dependency, virtualenv) instead, or ask the user.',
  programs: ['npm', 'pnpm', 'yarn', 'bun', 'pip', 'pip3', 'pipx', 'uv', 'cargo', 'gem', 'go', 'composer', 'dotnet', 'deno', 'python', 'python3', ...VERSIONED_PY],
  examples: {
    match: ['npm i -g typescript', 'npm install --global pnpm', 'yarn global add serve', 'pnpm add -g zx', 'pip install --user black', 'pip install --break-system-packages requests', 'sudo pip install requests', 'pipx install poetry', 'cargo install ripgrep', 'go install golang.org/x/tools/gopls@latest', 'composer global require laravel/installer'],
    notMatch: ['npm install', 'pip install -r requirements.txt', 'npm i -D vitest', 'cargo install --path .'],
  },
  match(cmd) {
    const ic = installCommand(cmd);
    if (!ic || !ic.global || ic.dryRun || ic.eco === 'system') return null;
    if (ic.packages.length > 0 && ic.packages.every((p) => p.local) && ic.eco !== 'npm') return null;
    return { subject: cutText(`${ic.tool} ${ic.packages.map((p) => p.spec).join(' ')}`) };
  },
});

export const rules: Rule[] = [installUndeclared, customIndex, npxUnknown, globalInstall];
