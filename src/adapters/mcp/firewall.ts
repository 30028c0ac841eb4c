// What the proxy checks when the gate is on: the tool list the client sees (hidden tools removed by the
// tool guard), every tools/call (the tool guard, then the gate, with no person on the line), and the roots
// the upstream is told about. The relay (proxy.ts) forwards everything else untouched.

import { randomId, nowMs } from '../../core/lazy.ts';
import { describeError } from '../../core/errors.ts';
import type { Decision, ToolCall } from '../../core/types.ts';
import { findProjectRoot } from '../../policy/load.ts';
import type { EffectivePolicy } from '../../policy/layers.ts';
import { buildEvent } from '../../audit/event.ts';
import { createAuditWriter } from '../../audit/writer.ts';
import type { AuditSink, DecideOptions, Gate } from '../../gate/gate.ts';
import { mcpRequestKind, type McpRequestMethod } from '../../core/tools.ts';
import { toRequestCall, toToolCall, type CallContext } from './call-mapping.ts';
import { RPC, toolErrorResult, type JsonRpcErrorObject, type Params } from './jsonrpc.ts';
import { allowedRootDirs, filterRoots } from './roots.ts';
import type { ToolDef, ToolGuard } from './tool-guard.ts';
import { inspectListed, type ListedKind } from './poison.ts';
import type { CancelToken } from './upstream.ts';

export interface Firewall {
  /** A tools/list result on its way to the client, without the tools the guard hides. */
  reviewList(params: Params | undefined, result: Params): Promise<Params>;
  /** Null when the call may go upstream; else the tool error result the client gets instead. */
  check(params: Params | undefined, callId: string, cancel: CancelToken): Promise<Params | null>;
  /**
   * A prompts/get, resources/read or completion/complete (core/tools.ts MCP_REQUESTS): null when it may go upstream,
   * else the JSON-RPC error the client gets instead (these results have no `isError`).
   */
  checkRequest(method: McpRequestMethod, params: Params | undefined, callId: string, cancel: CancelToken): Promise<JsonRpcErrorObject | null>;
  /**
   * A prompts/list, resources/list or resources/templates/list result on its way to the client, without the
   * entries whose text looks poisoned (they are remembered, and a request for one is refused).
   */
  reviewListing(method: string, result: Params): Params;
  /** Lists and reviews the upstream's tools again (after tools/list_changed): a rug pull is hidden. */
  refresh(): Promise<void>;
  /** The upstream session was replaced: its tools are listed again before the next call. */
  invalidate(): void;
  /** A roots/list answer on its way upstream, with only the roots the policy allows. */
  filterRoots(result: Params): Params;
}

export interface FirewallOptions {
  gate: Gate;
  guard: ToolGuard;
  /** The `<server>` of `mcp__<server>__<tool>`. */
  server: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  sessionId: string;
  /** Every tool the upstream lists (all pages). */
  listTools: () => Promise<ToolDef[]>;
  log: (line: string) => void;
  /** Where refusals the gate did not make are recorded: the gate's own sink; default the audit log of `env`. */
  audit?: AuditSink | null;
}

/** The rule id an audit line carries when the tool guard, not the policy, refused a call. */
export const TOOL_GUARD_RULE = 'mcp.tool-guard';
/** The rule id an audit line carries when a call was refused for an argument its tool's schema does not declare. */
export const UNDECLARED_ARGUMENT_RULE = 'mcp.undeclared-argument';

/**
 * The error a refused prompts/get, resources/read or completion/complete gets: these results have no
 * `isError`, so the refusal is a JSON-RPC error whose message is asimov's reason (in the form tool calls
 * get) and whose data names the rule and tier.
 */
export function refusalError(rule: string | null, tier: string, reason: string): JsonRpcErrorObject {
  return { code: RPC.refused, message: blockedText(rule, reason), data: { asimov: { rule, tier } } };
}

/**
 * The arguments of a tools/call that its listed input schema does not declare. JSON Schema admits extra
 * properties unless told otherwise, but a server may act on what the schema never mentions (a shell server
 * that reads `cmd` while the gate judged `command`), and the gate judges what the schema says. So an
 * argument is undeclared when the schema lists `properties` and neither `additionalProperties` (true or a
 * schema) nor `patternProperties` admits it. A schema without `properties` declares nothing and admits all.
 */
export function undeclaredArguments(def: ToolDef | undefined, args: unknown): string[] {
  const schema = def?.inputSchema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const props = s['properties'];
  if (!props || typeof props !== 'object' || Array.isArray(props)) return [];
  const extra = s['additionalProperties'];
  if (extra === true || (extra !== null && typeof extra === 'object')) return [];
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const patterns: RegExp[] = [];
  const pp = s['patternProperties'];
  if (pp && typeof pp === 'object' && !Array.isArray(pp)) {
    for (const p of Object.keys(pp)) {
      try {
        patterns.push(new RegExp(p, 'u'));
      } catch {
        // a pattern that does not compile admits nothing
      }
    }
  }
  return Object.keys(args).filter((k) => !Object.hasOwn(props, k) && !patterns.some((re) => re.test(k)));
}

/**
 * The gate's options for one call. Its signal (which stops a judge or a chain when the client cancels the
 * call) is made only if the gate reads it: most calls are settled by the policy alone, and an AbortSignal
 * per call is a measurable part of the proxy's cost. A class, so that the getter is defined once on its
 * prototype rather than per call.
 */
class CallDecideOptions implements DecideOptions {
  readonly personAvailable = false;
  private controller: AbortController | undefined;

  constructor(private readonly cancel: CancelToken) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      const made = new AbortController();
      const cancel = this.cancel;
      cancel.onCancel(() => made.abort(cancel.reason));
      this.controller = made;
    }
    return this.controller.signal;
  }
}

export function blockedText(rule: string | null, reason: string): string {
  return `asimov blocked this call${rule ? ` [${rule}]` : ''}: ${reason}`;
}

/** The listings whose entries are reviewed, the key of their array, and what an entry is. */
export const LISTINGS: Readonly<Record<string, { key: string; kind: ListedKind }>> = {
  'prompts/list': { key: 'prompts', kind: 'prompt' },
  'resources/list': { key: 'resources', kind: 'resource' },
  'resources/templates/list': { key: 'resourceTemplates', kind: 'resourceTemplate' },
};

export function createFirewall(o: FirewallOptions): Firewall {
  const projectRoot = findProjectRoot(o.cwd);
  let defs = new Map<string, ToolDef>();
  let listedOnce = false;
  let stale = false;
  let listing: Promise<void> | null = null;
  let visibleNames = new Set<string>();
  let hiddenShown = '';
  let audit: AuditSink | null | undefined = o.audit;
  /** Prompts and resources hidden from a listing as poisoned, with the reason: requests for them are refused. */
  const hiddenPrompts = new Map<string, string>();
  const hiddenResources = new Map<string, string>();

  // The gate keeps each project's policy for its lifetime; so does this (looking it up walks the directory tree).
  let loaded: EffectivePolicy | undefined;
  const policy = (): EffectivePolicy | null => {
    try {
      loaded ??= o.gate.policyFor(o.cwd);
      return loaded;
    } catch {
      return null; // broken: the gate refuses every call, and no root is forwarded
    }
  };

  const review = (tools: ToolDef[]): Set<string> => {
    const guarded = o.guard.review(tools);
    defs = new Map(tools.filter((t) => t && typeof t.name === 'string').map((t) => [t.name, t]));
    listedOnce = true;
    stale = false;
    const shown = guarded.hidden.map((h) => `${h.name}: ${h.reason}`).join('\n');
    if (shown !== hiddenShown) {
      hiddenShown = shown;
      for (const h of guarded.hidden) o.log(`hiding tool ${h.name} (${h.kind}): ${h.reason}`);
    }
    visibleNames = new Set(guarded.visible.map((t) => t.name));
    return visibleNames;
  };

  const refresh = (): Promise<void> => {
    // Stale until the new list is reviewed: a call that arrives meanwhile waits for the review, so a tool
    // changed under a tools/list_changed is never called on its old approval.
    stale = true;
    listing ??= o.listTools()
      .then((tools) => { review(tools); })
      .catch((e) => {
        stale = true;
        throw e;
      })
      .finally(() => { listing = null; });
    return listing;
  };

  /** Records a refusal the gate did not make (the gate records its own decisions). */
  const record = (call: ToolCall, d: Decision): void => {
    try {
      audit ??= createAuditWriter({ env: o.env });
      audit?.append(buildEvent(call, d));
    } catch (e) {
      o.log(`could not record a refused call in the audit log: ${describeError(e)}`);
    }
  };

  const refuse = (call: ToolCall, start: number, d: Pick<Decision, 'tier' | 'rule' | 'reason' | 'layer'> & { errorCode?: string }): Params => {
    record(call, { verdict: 'deny', findings: [], decisionId: randomId(), ms: nowMs() - start, ...d });
    return toolErrorResult(blockedText(d.rule, d.reason));
  };

  return {
    async reviewList(params, result) {
      const tools = Array.isArray(result['tools']) ? (result['tools'] as ToolDef[]) : null;
      if (tools === null) return { ...result, tools: [] };
      try {
        if (params?.['cursor'] === undefined && result['nextCursor'] === undefined) {
          const visible = review(tools);
          return { ...result, tools: tools.filter((t) => visible.has(t.name)) };
        }
        // One page of several: the guard judges the whole list (its verdicts are per listing), the page is cut to match.
        await refresh();
        return { ...result, tools: tools.filter((t) => visibleNames.has(t.name)) };
      } catch (e) {
        o.log(`the tool list could not be reviewed, so no tool is shown: ${describeError(e)}`);
        return { ...result, tools: [] };
      }
    },

    async check(params, callId, cancel) {
      const start = nowMs();
      const name = params?.['name'];
      const ctx: CallContext = { server: o.server, cwd: o.cwd, projectRoot, sessionId: o.sessionId };
      if (typeof name !== 'string' || name === '') {
        const call = toToolCall(String(name ?? ''), params?.['arguments'], undefined, ctx, callId);
        return refuse(call, start, { tier: 'unknown', rule: null, reason: 'The call names no tool.', layer: 'static' });
      }
      if (!listedOnce || stale) {
        try {
          await refresh();
        } catch (e) {
          const call = toToolCall(name, params?.['arguments'], undefined, ctx, callId);
          return refuse(call, start, {
            tier: 'unknown', rule: null, layer: 'error', errorCode: 'upstream_failed',
            reason: `The upstream's tool list could not be read to check this call: ${describeError(e)}`,
          });
        }
      }
      const shellTools = policy()?.mcp?.shellTools;
      if (shellTools) ctx.shellTools = shellTools;
      const call = toToolCall(name, params?.['arguments'], defs.get(name), ctx, callId);
      const guardReason = mcpRequestKind(name) !== null
        ? `tool "${name}" is named like the MCP method ${name}, so its calls could not be told apart from that method's; asimov refuses it`
        : o.guard.checkCall(name);
      if (guardReason !== null) return refuse(call, start, { tier: 'hard_deny', rule: TOOL_GUARD_RULE, reason: guardReason, layer: 'static' });
      const undeclared = undeclaredArguments(defs.get(name), params?.['arguments']);
      if (undeclared.length > 0) {
        const keys = undeclared.slice(0, 5).map((k) => `"${k.slice(0, 64)}"`).join(', ');
        return refuse(call, start, {
          tier: 'soft_deny', rule: UNDECLARED_ARGUMENT_RULE, layer: 'static',
          reason: `the arguments include ${keys}, which the input schema of tool "${name}" does not declare; the server could act on ${undeclared.length === 1 ? 'it' : 'them'}, but asimov never judged ${undeclared.length === 1 ? 'it' : 'them'}. Call the tool with its declared arguments only.`,
        });
      }
      const d = await o.gate.decide(call, new CallDecideOptions(cancel));
      cancel.onCancel(undefined);
      return d.verdict === 'allow' ? null : toolErrorResult(blockedText(d.rule, d.reason));
    },

    reviewListing(method, result) {
      const listing = LISTINGS[method];
      const items = listing ? result[listing.key] : undefined;
      if (!listing || !Array.isArray(items)) return result;
      const names = items.map((x) => (x && typeof x === 'object' && typeof (x as Params)['name'] === 'string' ? (x as Params)['name'] as string : ''));
      const kept = items.filter((x) => {
        if (!x || typeof x !== 'object') return false;
        const item = x as Params;
        let blocking;
        try {
          blocking = inspectListed(listing.kind, item, { siblings: names }).filter((f) => f.severity === 'block');
        } catch (e) {
          blocking = [{ kind: 'uninspectable', detail: `cannot be inspected: ${describeError(e)}`, where: '$' }];
        }
        if (blocking.length === 0) return true;
        const label = String(item['name'] ?? item['uri'] ?? item['uriTemplate'] ?? '?').slice(0, 80);
        const reason = `${listing.kind === 'prompt' ? 'prompt' : 'resource'} "${label}" is hidden: its listing looks poisoned (${blocking[0]!.kind}: ${blocking[0]!.detail} at ${blocking[0]!.where})`;
        if (listing.kind === 'prompt' && typeof item['name'] === 'string') hiddenPrompts.set(item['name'], reason);
        if (listing.kind === 'resource' && typeof item['uri'] === 'string') hiddenResources.set(item['uri'], reason);
        o.log(`hiding ${reason}`);
        return false;
      });
      return { ...result, [listing.key]: kept };
    },

    async checkRequest(method, params, callId, cancel) {
      const start = nowMs();
      const ctx: CallContext = { server: o.server, cwd: o.cwd, projectRoot, sessionId: o.sessionId };
      const call = toRequestCall(method, params, ctx, callId);
      const hidden = method === 'prompts/get' ? hiddenPrompts.get(String(params?.['name'])) : method === 'resources/read' ? hiddenResources.get(String(params?.['uri'])) : undefined;
      if (hidden !== undefined) {
        record(call, { verdict: 'deny', findings: [], decisionId: randomId(), ms: nowMs() - start, tier: 'hard_deny', rule: TOOL_GUARD_RULE, reason: hidden, layer: 'static' });
        return refusalError(TOOL_GUARD_RULE, 'hard_deny', hidden);
      }
      const d = await o.gate.decide(call, new CallDecideOptions(cancel));
      cancel.onCancel(undefined);
      return d.verdict === 'allow' ? null : refusalError(d.rule, d.tier, d.reason);
    },

    refresh,

    invalidate() {
      stale = true;
    },

    filterRoots(result) {
      const p = policy();
      if (p === null) {
        o.log('the policy is broken, so no root is passed to the upstream');
        return { ...result, roots: [] };
      }
      const { result: kept, dropped } = filterRoots(result, allowedRootDirs(p.projectRoot ?? projectRoot, p.mcp?.roots ?? []));
      if (dropped.length > 0) o.log(`roots not passed to the upstream (outside the project and mcp.roots): ${dropped.join(', ')}`);
      return kept;
    },
  };
}
