// What applies to one gated command or file access: the policy's trusted `tools:` section (roots, extra
// environment variables, limits) merged with the fixed roots and limits of whoever runs it (the MCP tools
// server's command line, `asimov serve`'s working directory). One merge for both, so they cannot drift apart.

import type { GatedToolsSettings } from '../policy/layers.ts';
import { GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES, GATED_TOOLS_DEFAULT_TIMEOUT_MS } from '../policy/schema.ts';
import { canonicalRoots } from './safe-path.ts';

export interface ToolsSettings {
  /** The allowed roots, canonical: the fixed ones first, then the policy's that exist on this machine. */
  roots: string[];
  /** Environment variables passed on top of the built-in allowlist (env.ts drops loader variables anyway). */
  env: string[];
  timeoutMs: number;
  maxOutputBytes: number;
  hookApprovals: boolean;
}

export interface ToolsSettingsOptions {
  /** Roots that always apply, already canonical (canonicalRoots). */
  fixedRoots: readonly string[];
  /** The directory the policy's relative roots are resolved against. */
  base: string;
  /** Limits that replace the policy's when given (a command line's). */
  timeoutMs?: number;
  maxOutputBytes?: number;
}

export function toolsSettings(g: GatedToolsSettings | undefined, o: ToolsSettingsOptions): ToolsSettings {
  const roots = [...o.fixedRoots];
  for (const r of g?.roots ?? []) {
    try {
      for (const c of canonicalRoots([r], o.base)) if (!roots.includes(c)) roots.push(c);
    } catch {
      // A policy root that does not exist on this machine is left out: that only narrows what is allowed,
      // and one shared policy file must not break the tools wherever one of its directories is missing.
    }
  }
  return {
    roots,
    env: g?.env ?? [],
    timeoutMs: o.timeoutMs ?? g?.timeoutMs ?? GATED_TOOLS_DEFAULT_TIMEOUT_MS,
    maxOutputBytes: o.maxOutputBytes ?? g?.maxOutputBytes ?? GATED_TOOLS_DEFAULT_MAX_OUTPUT_BYTES,
    hookApprovals: g?.hookApprovals ?? true,
  };
}
