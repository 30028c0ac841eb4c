// The guard a proxy puts between an upstream's tools/list and the agent: poisoned tools are hidden and
// never pinned; clean tools are pinned on first sight (trust on first use); a pinned tool whose
// definition changed is hidden, and its calls refused, until a person approves the new definition
// (`asimov mcp pins approve`). Called again after every tools/list_changed, so a rug pull mid-session
// is caught at the next listing. Nothing here fails open: any error hides the tools it concerns.

import { describeError } from '../../core/errors.ts';
import { inspectTool, type Finding, type ToolDef } from './poison.ts';
import { shellQuote } from '../../core/tools.ts';
import { defaultPinsPath, hashTool, pendingRecord, readPins, serverEntry, updatePins, type PinStore } from './pins.ts';

export type { ToolDef } from './poison.ts';

export interface GuardedTools {
  /** Tools the agent may see (unchanged objects). */
  visible: ToolDef[];
  /** Tools hidden from the agent, with the reason (poisoned, changed since pinned, not yet approved). */
  hidden: Array<{ name: string; reason: string; kind: 'poisoned' | 'changed' | 'unapproved' }>;
}

export interface ToolGuard {
  /** Applies pins and poisoning checks to an upstream's tools/list result. First sight of a clean tool pins it (trust on first use). */
  review(tools: ToolDef[]): GuardedTools;
  /** Null when the tool may be called, else the reason the call is refused (hidden, unknown, changed). */
  checkCall(name: string): string | null;
}

type HiddenKind = GuardedTools['hidden'][number]['kind'];

/** One listed tool, read once per review. */
interface Assessed {
  tool: ToolDef;
  name: string;
  /** Null when the definition could not be hashed (it is then hidden). */
  hash: string | null;
  blocking: Finding[];
  duplicate: boolean;
}

interface Verdict {
  visible: boolean;
  kind?: HiddenKind;
  reason?: string;
  hash: string | null;
}

/** serverId: a stable identity of the upstream (the command line or URL, normalised: pins.ts serverIdFor). */
export function createToolGuard(o: { serverId: string; pinsPath?: string; env?: NodeJS.ProcessEnv; home?: string }): ToolGuard {
  const env = o.env ?? process.env;
  const pinsPath = o.pinsPath ?? defaultPinsPath(env, o.home);
  const serverId = o.serverId;
  const approveHint = (name: string, extra = '') => `asimov mcp pins approve ${shellQuote(serverId)} ${shellQuote(name)}${extra}`;

  // The last review's outcome, by tool name: what checkCall answers from.
  let verdicts = new Map<string, Verdict>();

  function judge(store: PinStore, a: Assessed, apply: boolean): Verdict {
    const { name, hash } = a;
    if (a.duplicate) return { visible: false, kind: 'poisoned', hash, reason: `tool "${name}" is hidden: the server lists this name more than once` };
    if (hash === null) return { visible: false, kind: 'poisoned', hash, reason: `tool "${name}" is hidden: its definition cannot be read` };
    const server = store.servers[serverId];
    const pin = server?.tools[name];

    if (a.blocking.length > 0) {
      if (pin && pin.hash === hash && pin.acceptedFindings) return { visible: true, hash };
      if (apply && server?.pending[name]?.hash !== hash) {
        serverEntry(store, serverId).pending[name] = pendingRecord(a.tool, hash, 'poisoned', a.blocking.map(describeFinding));
      }
      const first = a.blocking[0]!;
      return {
        visible: false, kind: 'poisoned', hash,
        reason: `tool "${name}" is hidden: its definition looks poisoned (${describeFinding(first)}${a.blocking.length > 1 ? `, and ${a.blocking.length - 1} more` : ''}); review it with \`asimov mcp scan\`, and if it is harmless: ${approveHint(name, ' --accept-findings')}`,
      };
    }
    if (pin) {
      if (pin.hash === hash) {
        if (apply && server?.pending[name]) delete server.pending[name]; // the server went back to the approved definition
        return { visible: true, hash };
      }
      if (apply && server?.pending[name]?.hash !== hash) serverEntry(store, serverId).pending[name] = pendingRecord(a.tool, hash, 'changed');
      return {
        visible: false, kind: 'changed', hash,
        reason: `tool "${name}" changed since it was approved (pinned ${pin.hash.slice(0, 12)}, now ${hash.slice(0, 12)}); it stays hidden until a person reviews it (\`asimov mcp pins list\`) and runs: ${approveHint(name)}`,
      };
    }
    // First sight of a clean tool: pin it. Until the pin is written, it is not trusted.
    if (apply) {
      const s = serverEntry(store, serverId);
      s.tools[name] = { hash, pinnedAt: new Date().toISOString(), by: 'first-use' };
      delete s.pending[name];
      return { visible: true, hash };
    }
    return { visible: false, kind: 'unapproved', hash, reason: `tool "${name}" is hidden: it could not be pinned` };
  }

  function judgeAll(store: PinStore, assessed: Assessed[], apply: boolean): Verdict[] {
    return assessed.map((a) => judge(store, a, apply));
  }

  function review(tools: ToolDef[]): GuardedTools {
    const list = Array.isArray(tools) ? tools : [];
    const names = list.map((t) => (t && typeof t.name === 'string' ? t.name : ''));
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    const assessed: Assessed[] = list.map((tool, i) => {
      const name = names[i]!;
      let hash: string | null = null;
      let blocking: Finding[];
      try {
        blocking = inspectTool(tool, { siblings: names }).filter((f) => f.severity === 'block');
        hash = hashTool(tool);
      } catch (e) {
        blocking = [{ kind: 'uninspectable', severity: 'block', detail: `cannot be inspected: ${describeError(e)}`, where: '$' }];
      }
      return { tool, name, hash, blocking, duplicate: counts.get(name)! > 1 };
    });

    let verdictList: Verdict[];
    try {
      const store = readPins(pinsPath);
      // Decide on a copy first: most listings change nothing, and those need neither the lock nor a write.
      const trial = structuredClone(store);
      const trialVerdicts = judgeAll(trial, assessed, true);
      if (JSON.stringify(trial) === JSON.stringify(store)) {
        verdictList = trialVerdicts;
      } else {
        try {
          verdictList = updatePins(pinsPath, (current) => judgeAll(current, assessed, true));
        } catch (e) {
          // Pins could not be recorded: what was already approved stays visible, nothing new is trusted.
          const why = describeError(e);
          verdictList = judgeAll(store, assessed, false).map((v) => (v.kind === 'unapproved' ? { ...v, reason: `${v.reason}: ${why}` } : v));
        }
      }
    } catch (e) {
      const why = describeError(e);
      verdictList = assessed.map((a) => ({ visible: false, kind: 'unapproved' as const, hash: a.hash, reason: `tool "${a.name}" is hidden: ${why}` }));
    }

    const result: GuardedTools = { visible: [], hidden: [] };
    const next = new Map<string, Verdict>();
    assessed.forEach((a, i) => {
      const v = verdictList[i]!;
      // A name listed twice keeps the hidden verdict whichever copy came last.
      if (!next.has(a.name) || !v.visible) next.set(a.name, v);
      if (v.visible) result.visible.push(a.tool);
      else result.hidden.push({ name: a.name, reason: v.reason!, kind: v.kind! });
    });
    verdicts = next;
    return result;
  }

  function checkCall(name: string): string | null {
    const v = verdicts.get(name);
    if (!v) return `tool "${name}" is not in the tool list this server gave (asimov only lets listed, approved tools be called)`;
    if (v.visible) return null;
    // A person may have approved it since the last listing (`asimov mcp pins approve`): look again.
    if (v.hash !== null && v.kind !== 'unapproved') {
      try {
        const pin = readPins(pinsPath).servers[serverId]?.tools[name];
        if (pin && pin.hash === v.hash && (v.kind !== 'poisoned' || pin.acceptedFindings)) {
          verdicts.set(name, { visible: true, hash: v.hash });
          return null;
        }
      } catch {
        // still refused, for the reason below
      }
    }
    return v.reason!;
  }

  return { review, checkCall };
}

function describeFinding(f: Finding): string {
  return `${f.kind}: ${f.detail} at ${f.where}`;
}
