// Layering: merges the built-in pack with the user, project and managed policy files into the one
// EffectivePolicy the classifier consumes, enforcing trust, locked rules and the managed file's word.

import picomatch from 'picomatch';
import type { Tier } from '../core/types.ts';
import { tierRank } from '../core/types.ts';
import { AsimovError, formatLocated } from '../core/errors.ts';
import type { ErrorLocation } from '../core/errors.ts';
import type { Rule } from './rule.ts';
import type { JudgeConfig, ParsedPolicy } from './schema.ts';
import { didYouMean } from './schema.ts';
import type { CompiledCustomRule, ExampleRunner } from './custom.ts';
import { checkCustomExamples, compileCustomRule, resolvePathGlobs } from './custom.ts';
import type { PolicyTest } from './policy-tests.ts';
import { testsFromFile } from './policy-tests.ts';
import { sha256 } from './trust.ts';
import { builtinPackHash } from './builtin-hash.ts';
import { mergeTrustedSettings } from './trusted-settings.ts';
import type { TeamPolicyState } from './team-cache.ts';

export type LayerName = 'builtin' | 'user' | 'project' | 'managed';

/**
 * Paths every policy protects (writes there are soft_deny at least, like a policy file's `protectedPaths`):
 * editor settings that make the editor's own agent or tasks run code. VS Code's settings hold Copilot agent
 * mode's tool auto-approval (`chat.tools.autoApprove`, CVE-2025-53773: an agent writing it turns the next
 * session's confirmations off) and interpreter paths; tasks.json can run a task when the folder opens. Not
 * agent-config (hard_deny): people ask agents to change formatter settings there, so a person confirms instead.
 */
export const BUILTIN_PROTECTED_PATHS: readonly string[] = [
  '.vscode/settings.json',
  '.vscode/tasks.json',
  '~/.config/Code/User/settings.json',
  '~/Library/Application Support/Code/User/settings.json',
];
export type FileLayerName = Exclude<LayerName, 'builtin'>;

/** Lowest first; the managed files come last and have the final word (/etc's, then the team's: loadPolicy). */
export const FILE_LAYERS: readonly FileLayerName[] = ['user', 'project', 'managed'];
export const DEFAULT_BRANCHES: readonly string[] = ['main', 'master'];

export interface PolicySource {
  layer: LayerName;
  /** The file, or `builtin:recommended`. */
  path: string;
  sha256: string;
  /** Whether its loosening settings apply: always for builtin, user and managed; for a project, only once trusted. */
  trusted: boolean;
}

/** A tier a policy file set for a rule. */
export interface TierSetting {
  tier: Tier;
  /** The file that set it. */
  source: string;
  layer: FileLayerName;
}

/**
 * A custom `allow` rule with `overrides`: where it matches, the listed rules do not apply. One entry
 * per compiled rule object (a custom rule may have a shell side and a tool side).
 */
export interface AllowOverride {
  id: string;
  /** The very object found in EffectivePolicy.rules, so the classifier can key on identity. */
  rule: Rule;
  /** Concrete rule ids it switches off, globs expanded; locked and managed-owned ids removed. */
  overrides: readonly string[];
  source: string;
}

/** Tool classes a chain can be attached to (`all` covers every call). */
export type ChainToolClass = 'shell' | 'write' | 'edit' | 'read' | 'fetch' | 'search' | 'mcp' | 'all';

/** One external command following Claude Code's PreToolUse contract (JSON on stdin; exit 0 passes, 2 blocks). */
export interface ChainSpec {
  tools: ChainToolClass[];
  /** Run through /bin/sh -c, in the call's cwd. */
  command: string;
  timeoutMs: number;
  /** When true, a chain that cannot answer (missing, timed out, crashed) passes instead of denying; a block always denies. */
  optional: boolean;
  /** The policy file that declared it. */
  source: string;
}

export interface McpSettings {
  /** Upstream tool names whose `command`-like argument is a shell command (on top of the built-in list and schema detection). */
  shellTools: string[];
  /** Root URIs/paths the proxy may forward upstream in roots/list (absolute); empty: only the project root. */
  roots: string[];
}

export interface GatedToolsSettings {
  /** Environment variables passed to commands on top of the built-in allowlist (never loader variables). */
  env: string[];
  /** Directories the tools may touch besides the working directory (absolute). */
  roots: string[];
  timeoutMs: number;
  maxOutputBytes: number;
  /**
   * Whether a call the client's own asimov hook already allowed runs without a second decision (the
   * double-enforcement guard, src/gate/hook-approvals.ts). Default true; an optimisation, not a boundary.
   */
  hookApprovals: boolean;
}

/** Where a question nobody can answer here goes (`approvals:`; trusted files only, later layers win per key). */
export interface ApprovalsSettings {
  /** The approvals server's base URL; absent: only `asimov serve` itself (its own calls) has a person on call. */
  server?: string;
  timeoutSec: number;
  /** The environment variable holding the bearer token for `server`. */
  tokenEnv: string;
  /** The file that last set it. */
  source: string;
}

/** Where this machine's audit records go besides its own log (`audit:`; user and managed files only). */
export interface AuditSettings {
  /** The team's `asimov serve` base URL (no trailing /): records ship there; its team policy is fetched unless `policy` is false. */
  remote?: string;
  /** How the bearer token for `remote` is found: a literal (`token`), a file (`token_file`, absolute), or a variable (`token_env`, default ASIMOV_TEAM_TOKEN). */
  token?: string;
  tokenFile?: string;
  tokenEnv: string;
  /** Whether the team server's policy applies as a managed layer. Default true. */
  policy: boolean;
  /** OpenTelemetry export of decision events (OTLP/HTTP logs). */
  otlp?: { endpoint: string; headers: Record<string, string>; headersEnv: Record<string, string> };
  /** The file that last set it. */
  source: string;
}

/** The merged policy for one project, as the classifier consumes it. */
export interface EffectivePolicy {
  /** Built-in and custom rules, each carrying its EFFECTIVE tier. A custom rule may appear twice (shell and tool side). */
  rules: Rule[];
  /** Every rule whose tier a policy file set, with the file that set it. These tiers beat a RuleHit's own tier. */
  overridden: Map<string, TierSetting>;
  allowOverrides: AllowOverride[];
  /** Where each rule id comes from: `builtin` or the custom rule's file. */
  origins: Map<string, string>;
  /** Absolute globs (`~` expanded, project-relative resolved); writes/edits/deletes there are soft_deny at least. */
  protectedPaths: string[];
  /** Lower-cased hosts or `*.suffix` globs that uploads and fetches may go to. */
  allowedDomains: string[];
  /** Credential kinds trusted files let go to hosts (`dlp.allow`, loosening), beyond rules/dlp.ts's built-in pairs. */
  dlpAllow: { credential: string; hosts: string[] }[];
  defaultBranches: string[];
  /** Resource-name globs treated as production (`protectedNames:`), beyond the built-in ones; from every file (tightening). */
  protectedNames?: string[];
  judge?: JudgeConfig;
  /** External hook chains run by the gate after the static layer (`chains:`; trusted files only: they run commands). */
  chains?: ChainSpec[];
  /** How the MCP proxy reads tools (`mcp:`). */
  mcp?: McpSettings;
  /** Limits of asimov's own gated MCP tools (`tools:`). */
  gatedTools?: GatedToolsSettings;
  /** A person on call for questions nobody can answer at the agent (`approvals:`). */
  approvals?: ApprovalsSettings;
  /** Shipping records to the team server and OpenTelemetry (`audit:`). */
  audit?: AuditSettings;
  /**
   * The team server's policy (loadPolicy): whether its cached copy is a layer here (a second `managed`
   * source, after /etc/asimov/policy.yaml), its version and age. Absent when no team server is named.
   */
  team?: TeamPolicyState;
  tests: PolicyTest[];
  sources: PolicySource[];
  /** Things a person should know (ignored untrusted loosening, locked rules, managed conflicts). */
  warnings: string[];
  /** sha256 over the sources' hashes and trust, recorded in the audit log. */
  hash: string;
  projectRoot: string;
  home: string;
}

export interface LayerInput {
  layer: FileLayerName;
  parsed: ParsedPolicy;
}

export interface BuildOptions {
  builtin: readonly Rule[];
  layers: readonly LayerInput[];
  projectRoot: string;
  home: string;
  /** Asked once per project file; user and managed files need no trust. */
  isTrusted(parsed: ParsedPolicy): boolean;
  /** Checks custom rules' examples; without it examples are not run (see loadPolicy). */
  exampleRunner?: ExampleRunner;
  /** `builtin`'s hash when the caller knows it (the build's, for the recommended pack); else it is computed. */
  builtinHash?: string;
}

interface Entry {
  id: string;
  /** The rule's own tier (built-in definition or custom `tier:`). */
  base: Tier;
  tier: Tier;
  rules: Rule[];
  locked: boolean;
  origin: LayerName;
  source: string;
  deprecated?: { since: string; replacedBy?: string };
  setBy?: TierSetting;
  custom?: CompiledCustomRule;
}

interface Ignored {
  loc: ErrorLocation;
  what: string;
}

function schemaError(message: string, loc: ErrorLocation): AsimovError {
  return new AsimovError('policy_schema_error', message, loc);
}

function isGlob(s: string): boolean {
  return picomatch.scan(s).isGlob;
}

/** Ids a `rules:`/`overrides:` key names: itself, or every id its glob matches. */
function expandIds(key: string, ids: readonly string[]): string[] {
  if (!isGlob(key)) return ids.includes(key) ? [key] : [];
  const m = picomatch(key);
  return ids.filter((id) => m(id));
}

function unknownIdMessage(key: string, ids: readonly string[]): string {
  const families = [...new Set(ids.map((id) => `${id.slice(0, id.indexOf('.'))}.*`))];
  if (!isGlob(key) && families.includes(`${key}.*`)) return `"${key}" is a rule family, not a rule id (did you mean "${key}.*"?)`;
  const hint = didYouMean(key, isGlob(key) ? families : ids);
  const head = isGlob(key) ? `"${key}" matches no rule id` : `unknown rule id "${key}"`;
  return `${head}${hint ? ` (did you mean "${hint}"?)` : ''}`;
}

function sortLayers(layers: readonly LayerInput[]): LayerInput[] {
  return [...layers].sort((a, b) => FILE_LAYERS.indexOf(a.layer) - FILE_LAYERS.indexOf(b.layer));
}

/** Merges the layers. Throws AsimovError (located) for unknown ids, id clashes and failing examples. */
export function buildEffectivePolicy(o: BuildOptions): EffectivePolicy {
  const layers = sortLayers(o.layers);
  const warnings: string[] = [];
  const warn = (message: string, loc?: ErrorLocation) => warnings.push(formatLocated(message, loc));
  const trusted = new Map<LayerInput, boolean>(layers.map((l) => [l, l.layer !== 'project' || o.isTrusted(l.parsed)]));
  const ignored = new Map<LayerInput, Ignored[]>();
  const ignore = (l: LayerInput, what: string, loc: ErrorLocation) => {
    const list = ignored.get(l) ?? [];
    list.push({ what, loc });
    ignored.set(l, list);
  };

  // 1. The rule universe: the built-in pack, then every file's custom rules.
  const entries = new Map<string, Entry>();
  for (const r of o.builtin) {
    const e = entries.get(r.id);
    if (e) e.rules.push(r);
    else {
      entries.set(r.id, {
        id: r.id,
        base: r.tier,
        tier: r.tier,
        rules: [r],
        locked: r.locked === true,
        origin: 'builtin',
        source: 'builtin',
        ...(r.deprecated ? { deprecated: r.deprecated } : {}),
      });
    }
  }
  const builtinIds = new Set(entries.keys());
  /** Ids of custom rules an untrusted project declares but that are ignored: `rules:` may still name them. */
  const ignoredIds = new Set<string>();
  const compiled: { layer: LayerInput; rule: CompiledCustomRule }[] = [];
  for (const l of layers) {
    const { parsed } = l;
    (parsed.doc.custom ?? []).forEach((def, index) => {
      const idLoc = parsed.locate(['custom', index, 'id']);
      if (builtinIds.has(def.id)) {
        throw schemaError(`custom rule id "${def.id}" is a built-in rule id; choose another, e.g. "local.${def.id.slice(def.id.indexOf('.') + 1)}"`, idLoc);
      }
      const clash = compiled.find((c) => c.rule.id === def.id);
      if (clash) {
        const at = clash.layer.parsed.locate(['custom', clash.rule.index, 'id']);
        throw schemaError(`custom rule id "${def.id}" is already defined at ${at.file}:${at.line}; ids must be unique across policy files`, idLoc);
      }
      let c: CompiledCustomRule;
      try {
        c = compileCustomRule(def, parsed.file, index, parsed.locate);
      } catch (e) {
        if (e instanceof AsimovError) throw e;
        throw schemaError(`custom rule "${def.id}" does not compile: ${(e as Error).message}`, parsed.locate(['custom', index, 'match']));
      }
      if (o.exampleRunner) checkCustomExamples(c, o.exampleRunner, parsed.locate);
      compiled.push({ layer: l, rule: c });
      if (def.tier === 'allow' && !trusted.get(l)) {
        ignoredIds.add(def.id);
        ignore(l, `custom rule ${def.id} (tier allow${def.overrides ? ', overrides' : ''})`, parsed.locate(['custom', index], 'value'));
        return;
      }
      entries.set(def.id, {
        id: def.id,
        base: def.tier,
        tier: def.tier,
        rules: c.rules,
        locked: false,
        origin: l.layer,
        source: parsed.file,
        custom: c,
      });
    });
  }
  const ids = [...entries.keys()];
  const knownIds = [...ids, ...ignoredIds];

  // 2. Tier settings, layer by layer. Within a file, globs go first so an exact id beats `family.*`.
  /** Exact-id settings of the user/project files, to explain a managed override of them. */
  const lowerExact = new Map<string, { tier: Tier; loc: ErrorLocation; layer: FileLayerName }>();
  for (const l of layers) {
    const { parsed } = l;
    const settings = Object.entries(parsed.doc.rules ?? {}).map(([key, v]) => ({ key, tier: typeof v === 'string' ? v : v.tier, glob: isGlob(key) }));
    settings.sort((a, b) => Number(b.glob) - Number(a.glob));
    for (const { key, tier, glob } of settings) {
      const loc = parsed.locate(['rules', key], 'key');
      const targets = expandIds(key, ids);
      if (targets.length === 0) {
        if (ignoredIds.has(key) || (glob && expandIds(key, knownIds).length > 0)) continue;
        throw schemaError(unknownIdMessage(key, knownIds), loc);
      }
      let lowered = 0;
      for (const id of targets) {
        const e = entries.get(id);
        if (!e) continue;
        if (e.origin === 'managed' && l.layer !== 'managed') {
          if (!glob) warn(`"${id}" is a rule of the managed policy (${e.source}); other policy files cannot change it`, loc);
          continue;
        }
        if (e.locked && tierRank(tier) < tierRank(e.base)) {
          warn(`"${id}" is locked at ${e.base} and cannot be set to ${tier}; the setting is ignored`, loc);
          continue;
        }
        if (!trusted.get(l) && tierRank(tier) < tierRank(e.tier)) {
          lowered++;
          continue;
        }
        if (e.deprecated && !glob) {
          warn(`"${id}" is deprecated since ${e.deprecated.since}${e.deprecated.replacedBy ? `; use "${e.deprecated.replacedBy}"` : ''}`, loc);
        }
        if (l.layer === 'managed') {
          const lower = lowerExact.get(id);
          if (lower && lower.tier !== tier) {
            warn(`the managed policy (${parsed.file}) sets "${id}" to ${tier}; the ${lower.layer} setting ${lower.tier} does not apply`, lower.loc);
          }
        } else if (!glob) {
          lowerExact.set(id, { tier, loc, layer: l.layer });
        }
        e.tier = tier;
        e.setBy = { tier, source: parsed.file, layer: l.layer };
      }
      if (lowered > 0) {
        ignore(l, `rules.${key}: ${tier} (would lower ${glob ? `${lowered} rule(s)` : `it from ${entries.get(key)?.tier ?? '?'}`})`, loc);
      }
    }
  }

  // 3. The rules with their effective tiers (copies only where the tier changed).
  const effective = new Map<Entry, Rule[]>();
  for (const e of entries.values()) effective.set(e, e.rules.map((r) => (r.tier === e.tier ? r : { ...r, tier: e.tier })));

  // 4. Allow rules that switch other rules off where they match.
  const allowOverrides: AllowOverride[] = [];
  for (const { layer: l, rule: c } of compiled) {
    if (c.overrides.length === 0) continue;
    const fileIds = new Set<string>();
    c.overrides.forEach((key, i) => {
      const loc = l.parsed.locate(['custom', c.index, 'overrides', i]);
      const targets = expandIds(key, knownIds);
      if (targets.length === 0) throw schemaError(unknownIdMessage(key, knownIds), loc);
      for (const id of targets) {
        const e = entries.get(id);
        if (!e || id === c.id) continue;
        if (e.locked) {
          if (!isGlob(key)) warn(`"${id}" is locked and cannot be overridden by custom rule ${c.id}`, loc);
          continue;
        }
        const managedOwns = e.origin === 'managed' || e.setBy?.layer === 'managed';
        if (managedOwns && l.layer !== 'managed') {
          if (!isGlob(key)) warn(`"${id}" is set by the managed policy and cannot be overridden by custom rule ${c.id}`, loc);
          continue;
        }
        fileIds.add(id);
      }
    });
    const self = entries.get(c.id);
    // Only a rule still in force (trusted, and not raised above allow by a later layer) may switch others off.
    if (!self || self.tier !== 'allow' || fileIds.size === 0) continue;
    for (const rule of effective.get(self) ?? []) allowOverrides.push({ id: c.id, rule, overrides: [...fileIds], source: c.source });
  }

  // 5. Lists and settings. Tightening ones (protected paths, default branches) apply from every file;
  // loosening ones (allowed domains, the judge) and those that run commands (chains) only from trusted files.
  const protectedPaths: string[] = resolvePathGlobs(BUILTIN_PROTECTED_PATHS, o.home, o.projectRoot);
  const allowedDomains: string[] = [];
  const dlpAllow: { credential: string; hosts: string[] }[] = [];
  const defaultBranches: string[] = [...DEFAULT_BRANCHES];
  const protectedNames: string[] = [];
  let judge: JudgeConfig | undefined;
  const tests: PolicyTest[] = [];
  for (const l of layers) {
    const { doc, locate } = l.parsed;
    protectedPaths.push(...resolvePathGlobs(doc.protectedPaths ?? [], o.home, o.projectRoot));
    defaultBranches.push(...(doc.defaultBranches ?? []));
    protectedNames.push(...(doc.protectedNames ?? []).map((n) => n.toLowerCase()));
    if (doc.allowedDomains && doc.allowedDomains.length > 0) {
      if (trusted.get(l)) allowedDomains.push(...doc.allowedDomains.map((d) => d.toLowerCase().replace(/\.$/, '')));
      else ignore(l, 'allowedDomains', locate(['allowedDomains'], 'key'));
    }
    // Letting a credential go to a host is a loosening: only a trusted file's pairs count.
    if (doc.dlp?.allow && doc.dlp.allow.length > 0) {
      if (trusted.get(l)) dlpAllow.push(...doc.dlp.allow.map((a) => ({ credential: a.credential, hosts: a.hosts.map((h) => h.toLowerCase().replace(/\.$/, '')) })));
      else ignore(l, 'dlp.allow', locate(['dlp', 'allow'], 'key'));
    }
    if (doc.judge) {
      if (trusted.get(l)) judge = { ...judge, ...stripUndefined(doc.judge) };
      else ignore(l, 'judge', locate(['judge'], 'key'));
    }
    const fileTests = testsFromFile(l.parsed, l.layer, o.projectRoot);
    fileTests.forEach((t, i) => {
      if (t.rule !== undefined && !knownIds.includes(t.rule)) throw schemaError(unknownIdMessage(t.rule, knownIds), locate(['tests', i, 'rule']));
    });
    tests.push(...fileTests);
  }

  const settings = mergeTrustedSettings(layers, { home: o.home, projectRoot: o.projectRoot, isTrusted: (l) => trusted.get(l) === true, ignore });

  for (const [l, list] of ignored) {
    const items = [...list]
      .sort((a, b) => (a.loc.line ?? 0) - (b.loc.line ?? 0))
      .map((x) => `line ${x.loc.line ?? '?'}: ${x.what}`)
      .join('; ');
    warn(
      `this project policy is not trusted, so its loosening settings were ignored (its tightening settings apply): ${items}. ` +
        'If you wrote this file, review it and run `asimov trust` to apply them.',
      { file: l.parsed.file },
    );
  }

  // 6. The result.
  const rules: Rule[] = [];
  const overridden = new Map<string, TierSetting>();
  const origins = new Map<string, string>();
  for (const e of entries.values()) {
    rules.push(...(effective.get(e) ?? []));
    if (e.setBy) overridden.set(e.id, e.setBy);
    origins.set(e.id, e.source);
  }
  const sources: PolicySource[] = [
    {
      layer: 'builtin',
      path: 'builtin:recommended',
      sha256: o.builtinHash ?? builtinPackHash(o.builtin),
      trusted: true,
    },
    ...layers.map((l) => ({ layer: l.layer, path: l.parsed.file, sha256: l.parsed.sha256, trusted: trusted.get(l) === true })),
  ];
  const hash = sha256(sources.map((s) => `${s.layer}\t${s.path}\t${s.sha256}\t${s.trusted}`).join('\n'));
  return {
    rules,
    overridden,
    allowOverrides,
    origins,
    protectedPaths: [...new Set(protectedPaths)],
    allowedDomains: [...new Set(allowedDomains)],
    dlpAllow,
    defaultBranches: [...new Set(defaultBranches)],
    ...(protectedNames.length > 0 ? { protectedNames: [...new Set(protectedNames)] } : {}),
    ...(judge ? { judge } : {}),
    ...settings,
    tests,
    sources,
    warnings,
    hash,
    projectRoot: o.projectRoot,
    home: o.home,
  };
}

function stripUndefined<T extends object>(x: T): Partial<T> {
  return Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as Partial<T>;
}
