// The policy file format (version 1) as a zod schema, and the translation of zod's issues into
// messages a person can act on. Knows nothing about YAML or files: load.ts adds lines and names.
// zod/mini rather than full zod: the same validation core without the chainable classes, which
// halves this module's load time in the bundled CLI, a process that starts once per tool call.

import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import type { Tier } from '../core/types.ts';
import type { ErrorLocation } from '../core/errors.ts';
import { CREDENTIAL_KINDS } from '../content/secrets.ts';

export const TIERS = ['hard_deny', 'soft_deny', 'unknown', 'allow'] as const satisfies readonly Tier[];
/** Verdicts a policy test may expect besides a tier (`allow` is read as the tier). */
export const TEST_VERDICTS = ['deny', 'ask'] as const;
export const TOOL_KINDS = ['shell', 'write', 'edit', 'read', 'fetch', 'search', 'mcp'] as const;
/** Judge back-ends (DESIGN §5): Anthropic Messages, any OpenAI-compatible endpoint, the `claude -p` CLI. */
export const JUDGE_PROVIDERS = ['anthropic', 'openai', 'claude-cli'] as const;
/**
 * What happens when the judge is unsure, fails or times out. `allow` is deliberately absent:
 * a judge failure must never open the gate.
 */
export const ON_UNCERTAIN = ['ask', 'deny'] as const;
/** What a chain can be attached to: a tool kind, or `all` for every call (unknown tools included). */
export const CHAIN_TOOL_CLASSES = [...TOOL_KINDS, 'all'] as const;
/** A chain's own timeout: long enough for a real check, short enough that a hook still answers in time. */
export const CHAIN_DEFAULT_TIMEOUT_MS = 5_000;
export const CHAIN_MAX_TIMEOUT_MS = 60_000;
/** Defaults and bounds of the gated MCP tools (`tools:`). */
export const GATED_TOOLS_DEFAULT_TIMEOUT_MS = 120_000;
export const GATED_TOOLS_MAX_TIMEOUT_MS = 600_000;
export const GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;
/** Well under the 10 MB message size at which MCP's stdio transport drops the connection, even JSON-escaped. */
export const GATED_TOOLS_MAX_OUTPUT_BYTES = 4 * 1_048_576;
/** How long a call may wait for a person on call (`approvals.timeoutSec`). */
export const APPROVALS_DEFAULT_TIMEOUT_SEC = 120;
export const APPROVALS_MAX_TIMEOUT_SEC = 3600;
/** The variable the approvals token is read from unless `approvals.token_env` names another. */
export const APPROVALS_DEFAULT_TOKEN_ENV = 'ASIMOV_APPROVALS_TOKEN';
/** The variable the team server's token is read from unless `audit.token_env` (or token_file, token) says otherwise. */
export const AUDIT_DEFAULT_TOKEN_ENV = 'ASIMOV_TEAM_TOKEN';
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Custom rule ids: dotted, lower-case, at least two parts (`local.no-prod-psql`). */
export const RULE_ID_RE = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const DOMAIN_RE = /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i;

/** `x` and `[x]` both mean a one-element list: people write the short form. */
function toList(v: unknown): unknown {
  return typeof v === 'string' ? [v] : v;
}

/** A string that must not be empty, with our message rather than zod's. */
function nonEmpty(message: string) {
  return z.string().check(z.minLength(1, message));
}

/** A positive whole number of milliseconds up to `max`, with our messages. */
function millis(key: string, max: number, maxText: string) {
  const whole = `${key} must be a whole number of milliseconds`;
  return z
    .number({ error: whole })
    .check(z.int(whole), z.positive(`${key} must be positive`), z.maximum(max, `${key} must be at most ${max} (${maxText})`));
}

function nonEmptyStrings(what: string) {
  // What full zod's z.preprocess(fn, schema) builds: a pipe from a transform into the schema.
  return z.pipe(
    z.transform(toList),
    z.array(nonEmpty(`${what} must not be empty`)).check(z.minLength(1, `give at least one ${what}`)),
  );
}

/**
 * The schemas, built on first use: building them costs milliseconds at start-up, and a process whose
 * project has no policy file never validates one.
 */
function buildSchemas() {
  const tierSchema = z.enum(TIERS);

  const regexSchema = nonEmpty('pattern must not be empty').check(
    z.superRefine((src, ctx) => {
      try {
        new RegExp(src);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${(e as Error).message}` });
      }
    }),
  );

  const exampleSchema = z.union(
    [
      nonEmpty('an example command must not be empty'),
      z.strictObject({ tool: nonEmpty('tool must not be empty'), input: z.record(z.string(), z.unknown()) }),
    ],
    { error: 'an example is a shell command (a string) or a tool call { tool, input }' },
  );

  const matchSchema = z
    .strictObject({
      command: z.optional(
        z
          .array(nonEmpty('an argv glob must not be empty'), {
            error: (iss) => (iss.code === 'invalid_type' ? 'command is an argv prefix: a list such as [psql, "*prod*"]' : undefined),
          })
          .check(z.minLength(1, 'command needs at least the program name')),
      ),
      pattern: z.optional(regexSchema),
      path: z.optional(nonEmptyStrings('path glob')),
      tools: z.optional(nonEmptyStrings('tool kind or name')),
      tool: z.optional(nonEmptyStrings('tool name glob')),
      url: z.optional(nonEmptyStrings('host or URL glob')),
    })
    .check(
      z.superRefine((m, ctx) => {
        if (Object.values(m).every((v) => v === undefined)) {
          ctx.addIssue({ code: 'custom', message: 'give at least one matcher: command, pattern, path, tools, tool or url' });
        }
      }),
    );

  const customRuleSchema = z
    .strictObject({
      id: z.string().check(z.regex(RULE_ID_RE, 'a custom rule id is dotted lower-case words, e.g. `local.no-prod-psql`')),
      tier: tierSchema,
      reason: z.string().check(z.trim(), z.minLength(1, 'reason must not be empty: say what is at risk and what to do instead')),
      match: matchSchema,
      overrides: z.optional(nonEmptyStrings('rule id')),
      examples: z.strictObject({
        match: z.array(exampleSchema).check(z.minLength(1, 'give at least one `match` example')),
        notMatch: z.optional(z.array(exampleSchema)),
      }),
    })
    .check(
      z.superRefine((r, ctx) => {
        if (r.overrides && r.tier !== 'allow') {
          ctx.addIssue({ code: 'custom', path: ['overrides'], message: '`overrides` is only for rules with tier allow' });
        }
        const m = r.match;
        const shellOnly = m.command !== undefined || m.pattern !== undefined;
        const toolsExcludeShell = m.tools !== undefined && !m.tools.includes('shell');
        if (shellOnly && (m.tool !== undefined || toolsExcludeShell)) {
          ctx.addIssue({
            code: 'custom',
            path: ['match'],
            message: '`command` and `pattern` match shell commands only, but `tool`/`tools` exclude the shell: this rule could never match',
          });
        }
      }),
    );

  const judgeSchema = z.strictObject({
    provider: z.optional(z.enum(JUDGE_PROVIDERS)),
    model: z.optional(nonEmpty('model must not be empty')),
    baseUrl: z.optional(z.string().check(z.refine((u) => /^https?:\/\/[^\s/]+/.test(u), 'baseUrl must be an http:// or https:// URL'))),
    timeoutMs: z.optional(millis('timeoutMs', 600_000, '10 minutes')),
    onUncertain: z.optional(z.enum(ON_UNCERTAIN)),
    sendUserRequest: z.optional(z.boolean({ error: 'sendUserRequest must be true or false' })),
  });

  const chainSchema = z.strictObject({
    tools: z.pipe(
      z.transform(toList),
      z.array(z.enum(CHAIN_TOOL_CLASSES)).check(z.minLength(1, `give at least one tool class: ${CHAIN_TOOL_CLASSES.join(', ')}`)),
    ),
    command: z.string().check(z.trim(), z.minLength(1, 'command must not be empty')),
    timeoutMs: z.optional(millis('timeoutMs', CHAIN_MAX_TIMEOUT_MS, 'one minute')),
    optional: z.optional(z.boolean({ error: 'optional must be true or false' })),
  });

  const envNameSchema = z.string().check(z.regex(ENV_NAME_RE, 'an environment variable name is letters, digits and _, not starting with a digit'));

  // A directory: a path (absolute, `~/…` or relative to the project) or a file:// URI, as MCP roots are written.
  const rootSchema = nonEmpty('a root directory must not be empty').check(
    z.superRefine((r, ctx) => {
      if (r.startsWith('file:')) {
        try {
          fileURLToPath(r);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `"${r}" is not a usable file:// URI: ${(e as Error).message}` });
        }
      } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(r)) {
        ctx.addIssue({ code: 'custom', message: `"${r}" is not a directory; give a path or a file:// URI` });
      }
    }),
  );
  const rootsSchema = z.pipe(z.transform(toList), z.array(rootSchema).check(z.minLength(1, 'give at least one root directory')));

  const mcpSchema = z.strictObject({
    shellTools: z.optional(nonEmptyStrings('tool name')),
    roots: z.optional(rootsSchema),
  });

  // `dlp.allow`: a kind of credential value (content/secrets.ts) and the hosts it may be sent to. Loosening.
  const dlpAllowSchema = z.strictObject({
    credential: z.enum(['*', ...CREDENTIAL_KINDS] as [string, ...string[]], { error: `expected a credential kind (${CREDENTIAL_KINDS.join(', ')}) or *` }),
    hosts: z.pipe(z.transform(toList), z.array(nonEmpty('a host must not be empty').check(
      z.superRefine((h, ctx) => {
        if (!/^(?:mcp:[A-Za-z0-9_.-]+|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)$/.test(h)) ctx.addIssue({ code: 'custom', message: `"${h}" is not a host name, \`*.suffix\` or \`mcp:<server>\`` });
      }),
    )).check(z.minLength(1, 'give at least one host'))),
  });
  const dlpSchema = z.strictObject({ allow: z.optional(z.array(dlpAllowSchema)) });

  const toolsSchema = z.strictObject({
    env: z.optional(z.pipe(z.transform(toList), z.array(envNameSchema).check(z.minLength(1, 'give at least one variable name')))),
    roots: z.optional(rootsSchema),
    timeoutMs: z.optional(millis('timeoutMs', GATED_TOOLS_MAX_TIMEOUT_MS, '10 minutes')),
    maxOutputBytes: z.optional(
      z
        .number({ error: 'maxOutputBytes must be a whole number of bytes' })
        .check(
          z.int('maxOutputBytes must be a whole number of bytes'),
          z.positive('maxOutputBytes must be positive'),
          z.maximum(GATED_TOOLS_MAX_OUTPUT_BYTES, `maxOutputBytes must be at most ${GATED_TOOLS_MAX_OUTPUT_BYTES} (4 MiB)`),
        ),
    ),
    hookApprovals: z.optional(z.boolean({ error: 'hookApprovals must be true or false' })),
  });

  // `approvals:` routes a question nobody can answer here to a person on call. The token is never in the
  // file, only the name of the variable that holds it. Loosening (a refusal may become an allow): trusted files only.
  const approvalsSchema = z.strictObject({
    server: z.optional(
      z.string().check(z.refine((u) => /^https?:\/\/[^\s/]+/.test(u) && !/^https?:\/\/[^/]*@/.test(u), 'server must be an http:// or https:// URL without credentials in it')),
    ),
    timeoutSec: z.optional(
      z
        .number({ error: 'timeoutSec must be a whole number of seconds' })
        .check(
          z.int('timeoutSec must be a whole number of seconds'),
          z.positive('timeoutSec must be positive'),
          z.maximum(APPROVALS_MAX_TIMEOUT_SEC, `timeoutSec must be at most ${APPROVALS_MAX_TIMEOUT_SEC} (one hour)`),
        ),
    ),
    token_env: z.optional(envNameSchema),
  });

  // `audit:` ties this machine to its team's server: records ship there, and its team policy is the managed
  // layer. The token is best kept out of the file (token_env, token_file); `token` is accepted for an
  // owner-only user file. User and managed files only: a project must not send a team's records elsewhere.
  const httpUrl = (what: string) =>
    z.string().check(z.refine((u) => /^https?:\/\/[^\s/]+/.test(u) && !/^https?:\/\/[^/]*@/.test(u), `${what} must be an http:// or https:// URL without credentials in it`));
  const otlpSchema = z.strictObject({
    endpoint: httpUrl('otlp.endpoint'),
    headers: z.optional(z.record(z.string(), z.string())),
    headers_env: z.optional(z.record(z.string(), envNameSchema)),
  });
  // The machine's token goes to `remote` with every batch: in clear text only to this machine itself.
  const teamUrl = httpUrl('remote').check(
    z.refine((u) => u.startsWith('https://') || /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i.test(u), 'remote must be https:// (http:// only for this machine: 127.0.0.1, localhost, [::1]), since the token goes with every request'),
  );
  const auditSchema = z.strictObject({
    remote: z.optional(teamUrl),
    token: z.optional(nonEmpty('token must not be empty')),
    token_env: z.optional(envNameSchema),
    token_file: z.optional(nonEmpty('token_file must not be empty')),
    policy: z.optional(z.boolean({ error: 'policy must be true or false' })),
    otlp: z.optional(otlpSchema),
  });

  const testSchema = z
    .strictObject({
      command: z.optional(nonEmpty('command must not be empty')),
      tool: z.optional(nonEmpty('tool must not be empty')),
      input: z.optional(z.record(z.string(), z.unknown())),
      cwd: z.optional(nonEmpty('cwd must not be empty')),
      expect: z.enum([...TIERS, ...TEST_VERDICTS]),
      rule: z.optional(nonEmpty('rule must not be empty')),
    })
    .check(
      z.superRefine((t, ctx) => {
        if ((t.command === undefined) === (t.tool === undefined)) {
          ctx.addIssue({ code: 'custom', message: 'a test needs exactly one of `command` (a shell line) or `tool` with `input`' });
        } else if (t.tool !== undefined && t.input === undefined) {
          ctx.addIssue({ code: 'custom', message: 'a `tool` test needs `input`, e.g. { file_path: .env }' });
        } else if (t.command !== undefined && t.input !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['input'], message: '`input` goes with `tool`, not with `command`' });
        }
      }),
    );

  const domainSchema = nonEmpty('a domain must not be empty').check(
    z.superRefine((d, ctx) => {
      if (d.includes('://')) ctx.addIssue({ code: 'custom', message: `"${d}" is a URL; give the host only (e.g. api.example.com)` });
      else if (!DOMAIN_RE.test(d)) ctx.addIssue({ code: 'custom', message: `"${d}" is not a host name or \`*.suffix\`` });
    }),
  );

  const policySchema = z.strictObject({
    version: z.literal(1, { error: (iss) => (iss.input === undefined ? undefined : 'version must be 1, the only policy format this asimov reads') }),
    rules: z.nullish(
      z.record(
        z.string(),
        z.union([tierSchema, z.strictObject({ tier: tierSchema })], { error: 'expected a tier (hard_deny, soft_deny, unknown, allow) or { tier: … }' }),
      ),
    ),
    custom: z.nullish(z.array(customRuleSchema)),
    protectedPaths: z.nullish(nonEmptyStrings('path glob')),
    allowedDomains: z.nullish(z.pipe(z.transform(toList), z.array(domainSchema))),
    defaultBranches: z.nullish(nonEmptyStrings('branch name')),
    protectedNames: z.nullish(nonEmptyStrings('resource name glob')),
    judge: z.nullish(judgeSchema),
    chains: z.nullish(z.array(chainSchema)),
    mcp: z.nullish(mcpSchema),
    tools: z.nullish(toolsSchema),
    dlp: z.nullish(dlpSchema),
    approvals: z.nullish(approvalsSchema),
    audit: z.nullish(auditSchema),
    tests: z.nullish(z.array(testSchema)),
  });
  return { exampleSchema, matchSchema, customRuleSchema, judgeSchema, chainSchema, mcpSchema, toolsSchema, dlpSchema, approvalsSchema, auditSchema, testSchema, policySchema };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;

export function schemas(): Schemas {
  built ??= buildSchemas();
  return built;
}

export type PolicyDocument = z.infer<Schemas['policySchema']>;
export type CustomRuleDef = z.infer<Schemas['customRuleSchema']>;
export type MatchDef = z.infer<Schemas['matchSchema']>;
export type JudgeConfig = z.infer<Schemas['judgeSchema']>;
export type ChainDef = z.infer<Schemas['chainSchema']>;
export type McpDef = z.infer<Schemas['mcpSchema']>;
export type ToolsDef = z.infer<Schemas['toolsSchema']>;
export type TestDef = z.infer<Schemas['testSchema']>;
export type ApprovalsDef = z.infer<Schemas['approvalsSchema']>;
export type AuditDef = z.infer<Schemas['auditSchema']>;

/** A key path into the document: map keys and list indexes. */
export type KeyPath = readonly (string | number)[];

/** A policy file after YAML parsing and schema validation, able to point back into its source. */
export interface ParsedPolicy {
  /** Absolute path of the file (or a label for text that came from elsewhere). */
  file: string;
  sha256: string;
  doc: PolicyDocument;
  /** Where a key path sits in the file; `at: 'key'` points at the key itself rather than its value. */
  locate(path: KeyPath, at?: 'key' | 'value'): ErrorLocation;
}

/** One schema problem, before it is given a line. */
export interface SchemaProblem {
  path: KeyPath;
  message: string;
  at: 'key' | 'value';
}

/** Validates parsed YAML data; returns the document or every problem found. */
export function validatePolicyData(data: unknown): { ok: true; doc: PolicyDocument } | { ok: false; problems: SchemaProblem[] } {
  if (data === null || data === undefined) {
    return { ok: false, problems: [{ path: [], at: 'value', message: 'the policy file is empty; it needs at least `version: 1`' }] };
  }
  const r = schemas().policySchema.safeParse(data);
  if (r.success) return { ok: true, doc: r.data };
  const problems: SchemaProblem[] = [];
  const refinements = new Set<SchemaProblem>();
  for (const issue of r.error.issues) {
    const explained = explainIssue(issue as Issue, [], data);
    if (issue.code === 'custom') for (const p of explained) refinements.add(p);
    problems.push(...explained);
  }
  // A whole-object check (`give at least one matcher`) failing because a key inside was misspelt is
  // noise: the misspelt key is the problem to report.
  const under = (inner: KeyPath, outer: KeyPath) => inner.length > outer.length && outer.every((s, i) => inner[i] === s);
  return { ok: false, problems: problems.filter((p) => !refinements.has(p) || !problems.some((q) => q !== p && under(q.path, p.path))) };
}

/** `a.b[0].c`, the key path form used in messages. */
export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

/** The closest candidate within edit distance 2 (case, `_` and `-` ignored first), if any. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const w = norm(word);
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    if (c === word) continue;
    const d = Math.min(levenshtein(word, c), levenshtein(w, norm(c)));
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

// ---- issue translation -------------------------------------------------------------------------

interface Issue {
  code: string;
  path: (string | number | symbol)[];
  message: string;
  expected?: string;
  values?: unknown[];
  keys?: string[];
  errors?: Issue[][];
  origin?: string;
  minimum?: number | bigint;
  input?: unknown;
}

/** The keys of a policy file and of its sections, spelled out so suggestions need no schema built (a test keeps them equal). */
export const TOP_LEVEL_KEYS = [
  'version', 'rules', 'custom', 'protectedPaths', 'allowedDomains', 'defaultBranches', 'protectedNames', 'judge', 'chains', 'mcp', 'tools', 'dlp', 'approvals', 'audit', 'tests',
] as const;
export const JUDGE_KEYS = ['provider', 'model', 'baseUrl', 'timeoutMs', 'onUncertain', 'sendUserRequest'] as const;
export const CHAIN_KEYS = ['tools', 'command', 'timeoutMs', 'optional'] as const;
export const MCP_KEYS = ['shellTools', 'roots'] as const;
export const TOOLS_KEYS = ['env', 'roots', 'timeoutMs', 'maxOutputBytes', 'hookApprovals'] as const;
export const APPROVALS_KEYS = ['server', 'timeoutSec', 'token_env'] as const;
export const AUDIT_KEYS = ['remote', 'token', 'token_env', 'token_file', 'policy', 'otlp'] as const;

/** Keys each kind of mapping accepts, for "did you mean" on unknown keys. */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': TOP_LEVEL_KEYS,
  'rules.*': ['tier'],
  'custom[]': ['id', 'tier', 'reason', 'match', 'overrides', 'examples'],
  'custom[].match': ['command', 'pattern', 'path', 'tools', 'tool', 'url'],
  'custom[].examples': ['match', 'notMatch'],
  'custom[].examples.match[]': ['tool', 'input'],
  'custom[].examples.notMatch[]': ['tool', 'input'],
  judge: JUDGE_KEYS,
  'chains[]': CHAIN_KEYS,
  mcp: MCP_KEYS,
  tools: TOOLS_KEYS,
  dlp: ['allow'],
  approvals: APPROVALS_KEYS,
  audit: AUDIT_KEYS,
  'audit.otlp': ['endpoint', 'headers', 'headers_env'],
  'dlp.allow[]': ['credential', 'hosts'],
  'tests[]': ['command', 'tool', 'input', 'cwd', 'expect', 'rule'],
};

function shapeOf(path: KeyPath): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (typeof seg === 'number') out += '[]';
    else if (i === 1 && path[0] === 'rules') out += '.*';
    else out += out ? `.${seg}` : String(seg);
  }
  return out;
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function describeValue(v: unknown): string {
  if (v === null) return 'nothing (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the text "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v === 'number' ? 'the number' : typeof v} ${String(v)}`;
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/**
 * Zod's built-in messages start this way; ours (set in the schema) never do. zod/mini registers no
 * locale, so its fallback is a bare "Invalid input"; full zod, if anything in the process loads it,
 * registers English ("Invalid input: expected …", "Too small: …"). Both are caught here.
 */
function isDefaultMessage(m: string): boolean {
  return /^(Invalid |Too small|Too big|Unrecognized key)/.test(m);
}

function explainIssue(issue: Issue, base: KeyPath, data: unknown): SchemaProblem[] {
  const path: KeyPath = [...base, ...issue.path.filter((s): s is string | number => typeof s !== 'symbol')];
  const value = valueAt(data, path);
  const own = !isDefaultMessage(issue.message);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = KNOWN_KEYS[shapeOf(path)] ?? [];
      return (issue.keys ?? []).map((k) => {
        const hint = didYouMean(k, known);
        const list = known.length ? `; known keys: ${known.join(', ')}` : '';
        return { path: [...path, k], at: 'key' as const, message: `unknown key "${k}"${hint ? ` (did you mean "${hint}"?)` : list}` };
      });
    }
    case 'invalid_type':
    case 'invalid_value':
      if (value === undefined) {
        const key = path[path.length - 1];
        const hint = key === 'version' ? ' (add `version: 1`)' : '';
        return [{ path, at: 'key', message: `missing required key "${String(key)}"${hint}` }];
      }
      return issue.code === 'invalid_type' ? explainType(issue, path, value, own) : explainValue(issue, path, value, own);
    case 'invalid_union': {
      // Report the alternative whose shape fits the value (a string for `tier`, a mapping for
      // `{ tier }`), so the message talks about the form the author was writing.
      for (const branch of issue.errors ?? []) {
        if (!branch.some((i) => rootTypeMismatch(i, value))) return branch.flatMap((i) => explainIssue(i, path, data));
      }
      return [{ path, at: 'value', message: own ? issue.message : `unexpected ${describeValue(value)}` }];
    }
    case 'too_small': {
      if (own) return [{ path, at: 'value', message: issue.message }];
      const what = issue.origin === 'array' ? `at least ${String(issue.minimum)} item(s)` : 'not be empty';
      return [{ path, at: 'value', message: `must have ${what}` }];
    }
    default:
      return [{ path, at: 'value', message: issue.message }];
  }
}

function explainType(issue: Issue, path: KeyPath, value: unknown, own: boolean): SchemaProblem[] {
  if (own) return [{ path, at: 'value', message: issue.message }];
  if (path.length === 0) {
    return [{ path, at: 'value', message: `the policy file must be a mapping of keys starting with \`version: 1\`, not ${describeValue(value)}` }];
  }
  const expected = EXPECTED[issue.expected ?? ''] ?? issue.expected ?? 'something else';
  return [{ path, at: 'value', message: `expected ${expected}, got ${describeValue(value)}` }];
}

function explainValue(issue: Issue, path: KeyPath, value: unknown, own: boolean): SchemaProblem[] {
  if (own) return [{ path, at: 'value', message: issue.message }];
  const options = (issue.values ?? []).map(String);
  const hint = typeof value === 'string' ? didYouMean(value, options) : undefined;
  return [{ path, at: 'value', message: `${describeValue(value)} is not one of ${options.join(', ')}${hint ? ` (did you mean "${hint}"?)` : ''}` }];
}

function rootTypeMismatch(i: Issue, value: unknown): boolean {
  if (i.path.length !== 0) return false;
  if (i.code === 'invalid_type') return true;
  if (i.code === 'invalid_value') return !(i.values ?? []).some((v) => typeof v === typeof value);
  return false;
}
