// The policy keys that run commands or widen what asimov's MCP adapters reach (`chains:`, `mcp:`,
// `tools:`), merged across the policy files. Like `judge:`, they count only from trusted files: a chain
// runs an arbitrary command on every matching call, and shell tools, extra roots and forwarded variables
// loosen. An untrusted project's copy is reported, through `ignore`, and otherwise dropped.

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { shellQuote } from '../core/tools.ts';
import type { ErrorLocation } from '../core/errors.ts';
import type { ApprovalsSettings, AuditSettings, ChainSpec, GatedToolsSettings, LayerInput, McpSettings } from './layers.ts';
import { APPROVALS_DEFAULT_TIMEOUT_SEC, APPROVALS_DEFAULT_TOKEN_ENV, AUDIT_DEFAULT_TOKEN_ENV, CHAIN_DEFAULT_TIMEOUT_MS, GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES, GATED_TOOLS_DEFAULT_TIMEOUT_MS } from './schema.ts';

export interface TrustedSettings {
  chains?: ChainSpec[];
  mcp?: McpSettings;
  gatedTools?: GatedToolsSettings;
  approvals?: ApprovalsSettings;
  audit?: AuditSettings;
}

export interface MergeSettingsOptions {
  home: string;
  /** The project being loaded. */
  projectRoot: string;
  /** Whether a file's loosening settings apply (see buildEffectivePolicy). */
  isTrusted(layer: LayerInput): boolean;
  /** Records a setting of an untrusted file that was left out. */
  ignore(layer: LayerInput, what: string, loc: ErrorLocation): void;
}

/**
 * Chains accumulate in layer order (user, project, managed; in each file as written), so no file can
 * drop another's: a managed chain always runs. List settings accumulate too; a number set by a later
 * layer replaces an earlier one, so the managed file has the last word.
 */
export function mergeTrustedSettings(layers: readonly LayerInput[], o: MergeSettingsOptions): TrustedSettings {
  const chains: ChainSpec[] = [];
  let mcp: McpSettings | undefined;
  let gatedTools: GatedToolsSettings | undefined;
  let approvals: ApprovalsSettings | undefined;
  let audit: AuditSettings | undefined;
  for (const l of layers) {
    const { doc, locate, file } = l.parsed;
    const base = declaringRoot(l, o.projectRoot);
    const trusted = o.isTrusted(l);
    if (doc.chains && doc.chains.length > 0) {
      if (!trusted) o.ignore(l, `chains (${doc.chains.length} command${doc.chains.length === 1 ? '' : 's'} to run)`, locate(['chains'], 'key'));
      else {
        for (const c of doc.chains) {
          chains.push({
            tools: dedupe(c.tools),
            command: resolveChainCommand(c.command, base, o.home),
            timeoutMs: c.timeoutMs ?? CHAIN_DEFAULT_TIMEOUT_MS,
            optional: c.optional ?? false,
            source: file,
          });
        }
      }
    }
    if (doc.mcp) {
      if (!trusted) o.ignore(l, 'mcp', locate(['mcp'], 'key'));
      else {
        mcp ??= { shellTools: [], roots: [] };
        mcp.shellTools = dedupe([...mcp.shellTools, ...(doc.mcp.shellTools ?? [])]);
        mcp.roots = dedupe([...mcp.roots, ...resolveRoots(doc.mcp.roots ?? [], base, o.home)]);
      }
    }
    if (doc.tools) {
      if (!trusted) o.ignore(l, 'tools', locate(['tools'], 'key'));
      else {
        gatedTools ??= { env: [], roots: [], timeoutMs: GATED_TOOLS_DEFAULT_TIMEOUT_MS, maxOutputBytes: GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES, hookApprovals: true };
        gatedTools.env = dedupe([...gatedTools.env, ...(doc.tools.env ?? [])]);
        gatedTools.roots = dedupe([...gatedTools.roots, ...resolveRoots(doc.tools.roots ?? [], base, o.home)]);
        if (doc.tools.timeoutMs !== undefined) gatedTools.timeoutMs = doc.tools.timeoutMs;
        if (doc.tools.maxOutputBytes !== undefined) gatedTools.maxOutputBytes = doc.tools.maxOutputBytes;
        if (doc.tools.hookApprovals !== undefined) gatedTools.hookApprovals = doc.tools.hookApprovals;
      }
    }
    // A person on call can turn a refusal into an allow, and the server named here is the one that answers:
    // an untrusted project could otherwise point its calls at a server of its own that approves everything.
    if (doc.approvals) {
      if (!trusted) o.ignore(l, 'approvals', locate(['approvals'], 'key'));
      else {
        approvals ??= { timeoutSec: APPROVALS_DEFAULT_TIMEOUT_SEC, tokenEnv: APPROVALS_DEFAULT_TOKEN_ENV, source: file };
        if (doc.approvals.server !== undefined) approvals.server = doc.approvals.server.replace(/\/+$/, '');
        if (doc.approvals.timeoutSec !== undefined) approvals.timeoutSec = doc.approvals.timeoutSec;
        if (doc.approvals.token_env !== undefined) approvals.tokenEnv = doc.approvals.token_env;
        approvals.source = file;
      }
    }
    // Where the records go and whose policy is the managed layer: the person's or the organisation's call,
    // never a project's, trusted or not (a repository could otherwise collect a team's records, or serve a
    // policy of its own choosing as the layer nothing may loosen).
    if (doc.audit) {
      if (l.layer === 'project') o.ignore(l, 'audit (only the user and managed policy say where records go)', locate(['audit'], 'key'));
      else {
        audit ??= { tokenEnv: AUDIT_DEFAULT_TOKEN_ENV, policy: true, source: file };
        const a = doc.audit;
        if (a.remote !== undefined) audit.remote = a.remote.replace(/\/+$/, '');
        // One way to the token per file: the last file that names one decides.
        if (a.token !== undefined || a.token_file !== undefined || a.token_env !== undefined) {
          delete audit.token;
          delete audit.tokenFile;
          audit.tokenEnv = a.token_env ?? AUDIT_DEFAULT_TOKEN_ENV;
          if (a.token !== undefined) audit.token = a.token;
          if (a.token_file !== undefined) audit.tokenFile = resolveRoots([a.token_file], base, o.home)[0];
        }
        if (a.policy !== undefined) audit.policy = a.policy;
        if (a.otlp !== undefined) audit.otlp = { endpoint: a.otlp.endpoint, headers: { ...(a.otlp.headers ?? {}) }, headersEnv: { ...(a.otlp.headers_env ?? {}) } };
        audit.source = file;
      }
    }
  }
  return {
    ...(chains.length > 0 ? { chains } : {}),
    ...(mcp ? { mcp } : {}),
    ...(gatedTools ? { gatedTools } : {}),
    ...(approvals ? { approvals } : {}),
    ...(audit ? { audit } : {}),
  };
}

/**
 * What relative paths in a file mean: a project file's own project (the directory holding its
 * `.asimov/`); for the user and managed files, the project being checked, as for their `tests:`, so a
 * user policy can name each project's own check script.
 */
function declaringRoot(l: LayerInput, projectRoot: string): string {
  if (l.layer !== 'project') return projectRoot;
  // The trusted file's real directory: trust is keyed on the real path, so relative commands and roots
  // mean what they meant where the file was reviewed, never another project's scripts reached by a link.
  let file = l.parsed.file;
  try {
    file = realpathSync(file);
  } catch {
    // gone since it was read: its lexical place is all there is
  }
  return dirname(dirname(file));
}

/** A first word of only these characters is a plain path the shell would run as written. */
const PLAIN_WORD = /^[A-Za-z0-9_.~+@%,:/-]+$/;

/**
 * The command with a relative program path (`./scripts/check.sh`, `tools/check`, `~/bin/check`) made
 * absolute, since the chain runs in the call's directory, not the policy's. Anything else (a program on
 * PATH, an absolute path, a quoted or computed first word) is left as written.
 */
export function resolveChainCommand(command: string, base: string, home: string): string {
  const text = command.trim();
  const head = /^\S+/.exec(text)?.[0] ?? '';
  if (!PLAIN_WORD.test(head) || !head.includes('/') || head.startsWith('/')) return text;
  let abs: string;
  if (head.startsWith('~/')) abs = join(home, head.slice(2));
  else if (head.startsWith('~')) return text; // ~user/…: the shell's business
  else abs = resolve(base, head);
  return `${shellQuote(abs)}${text.slice(head.length)}`;
}

/** Directories as absolute paths: `~` expanded, `file://` URIs read, relative ones from the declaring root. */
export function resolveRoots(roots: readonly string[], base: string, home: string): string[] {
  return roots.map((r) => {
    if (r.startsWith('file://')) return resolve(fileURLToPath(r));
    if (r === '~') return home;
    if (r.startsWith('~/')) return join(home, r.slice(2));
    return isAbsolute(r) ? resolve(r) : resolve(base, r);
  });
}

function dedupe<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
