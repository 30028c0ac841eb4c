// The MCP proxy's cost (issues 5 and 18): what `asimov mcp proxy` adds to one tools/call. Five clients of the
// official SDK, each with its own server-everything over stdio: one straight to the server, one through a
// dumb byte relay (bench/byte-relay.cjs: a process that copies bytes both ways and parses nothing, the floor
// for any proxy), one through the proxy with the gate on (policy, tool guard, audit log written), one the
// same with the audit log off (to show what the log costs), one through the proxy with --passthrough.
// Their echo calls alternate call by call, in a rotating order, so machine noise hits all alike; the
// overhead is the median of the per-round differences to the direct call, and for the gate also to the
// relay (issue 18's target: what the proxy costs above the floor). The proxy is the built CLI
// (bin/asimov.cjs), as a client would start it.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { formatUs, infoRow, skipRow, targetRow, type SummaryRow } from './report.ts';
import { median, quantile } from './stats.ts';

/** Calls per path measured, after WARMUP calls each that are not. */
const ROUNDS = 3000;
const WARMUP = 300;
const TARGET_GATE_US = 400;
const TARGET_PASS_US = 150;
/**
 * Back-to-back: blocks of BLOCK calls to one path, the blocks alternating between the relay and the gate
 * proxy. In the rotation above a proxy's next call comes only after the other paths' calls, so whatever it
 * does right after an answer is never on a measured path; an agent's burst sends the next call at once.
 */
const BURST_BLOCKS = 150;
const BLOCK = 20;
/** Issue 18: the gate proxy above the byte relay. */
const TARGET_GATE_OVER_RELAY_US = 60;

const PATHS = ['direct', 'relay', 'gate', 'gateNoAudit', 'passthrough'] as const;
type PathName = (typeof PATHS)[number];
type Proxied = Exclude<PathName, 'direct'>;

export interface PathStats {
  medianUs: number;
  p99Us: number;
}

export interface McpBenchReport {
  skipped?: string;
  rounds: number;
  paths?: Record<PathName, PathStats>;
  /** Median of the per-round differences to the direct call, and the difference of the p99s. */
  overhead?: Record<Proxied, PathStats>;
  /** The same, to the relay instead of the direct call: what each proxy costs above the floor. */
  overRelay?: Record<Exclude<Proxied, 'relay'>, PathStats>;
  /** Back-to-back calls: the gate proxy above the relay per call (median of the per-block differences). */
  burstOverRelayUs?: number;
}

/** A user policy that allows the echo tool, so the gated calls really go upstream (a denied call never would). */
const POLICY = `version: 1
custom:
  - id: bench.echo
    tier: allow
    reason: The bench's echo tool is harmless.
    match: { tool: "mcp__everything__echo" }
    examples:
      match: [{ tool: mcp__everything__echo, input: { message: x } }]
      notMatch: [{ tool: mcp__everything__other, input: {} }]
`;

async function connect(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'asimov-bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command, args, cwd, env, stderr: 'ignore' }));
  return client;
}

export async function runMcpBench(repoRoot: string, benchDir: string): Promise<McpBenchReport> {
  const everything = join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const bin = join(repoRoot, 'bin/asimov.cjs');
  const relay = join(repoRoot, 'bench/byte-relay.cjs');
  // Named like the bench's sandbox, so that a run killed midway leaves nothing git would pick up.
  const root = mkdtempSync(join(benchDir, 'sandbox-mcp-'));
  const clients: Client[] = [];
  try {
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(home, '.config/asimov'), { recursive: true });
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(home, '.config/asimov/policy.yaml'), POLICY);
    const env = { PATH: process.env.PATH ?? '', HOME: home, ASIMOV_AUDIT_LOG: join(root, 'audit.jsonl') };
    const upstream = [process.execPath, everything, 'stdio'];
    const byPath: Record<PathName, Client> = {
      direct: await connect(upstream[0]!, upstream.slice(1), project, env),
      relay: await connect(process.execPath, [relay, ...upstream], project, env),
      gate: await connect(process.execPath, [bin, 'mcp', 'proxy', '--', ...upstream], project, env),
      gateNoAudit: await connect(process.execPath, [bin, 'mcp', 'proxy', '--', ...upstream], project, { ...env, ASIMOV_AUDIT_LOG: 'off' }),
      passthrough: await connect(process.execPath, [bin, 'mcp', 'proxy', '--passthrough', '--', ...upstream], project, env),
    };
    clients.push(...Object.values(byPath));

    const call = async (c: Client, i: number): Promise<number> => {
      const t0 = performance.now();
      const r = await c.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: `m${i}` } } }, CallToolResultSchema);
      const us = (performance.now() - t0) * 1000;
      if (r.isError) throw new Error(`the echo call failed: ${JSON.stringify(r.content)}`);
      return us;
    };
    for (let i = 0; i < WARMUP; i++) for (const p of PATHS) await call(byPath[p], i);

    const samples: Record<PathName, number[]> = { direct: [], relay: [], gate: [], gateNoAudit: [], passthrough: [] };
    const diffs: Record<Proxied, number[]> = { relay: [], gate: [], gateNoAudit: [], passthrough: [] };
    const relayDiffs: Record<Exclude<Proxied, 'relay'>, number[]> = { gate: [], gateNoAudit: [], passthrough: [] };
    const proxied = PATHS.filter((p): p is Proxied => p !== 'direct');
    const aboveRelay = ['gate', 'gateNoAudit', 'passthrough'] as const;
    for (let i = 0; i < ROUNDS; i++) {
      const took = new Map<PathName, number>();
      for (let k = 0; k < PATHS.length; k++) {
        const p = PATHS[(i + k) % PATHS.length]!;
        took.set(p, await call(byPath[p], i));
      }
      for (const p of PATHS) samples[p].push(took.get(p)!);
      for (const p of proxied) diffs[p].push(took.get(p)! - took.get('direct')!);
      for (const p of aboveRelay) relayDiffs[p].push(took.get(p)! - took.get('relay')!);
    }
    const stats = (v: number[]): PathStats => {
      const s = v.slice().sort((a, b) => a - b);
      return { medianUs: median(s), p99Us: quantile(s, 0.99) };
    };
    const paths = Object.fromEntries(PATHS.map((p) => [p, stats(samples[p])])) as Record<PathName, PathStats>;
    const overhead = Object.fromEntries(proxied.map((p) => [p, { medianUs: median(diffs[p]), p99Us: paths[p].p99Us - paths.direct.p99Us }])) as Record<Proxied, PathStats>;
    const blockMean = async (c: Client, b: number): Promise<number> => {
      let sum = 0;
      for (let k = 0; k < BLOCK; k++) sum += await call(c, b * BLOCK + k);
      return sum / BLOCK;
    };
    const burstDiffs: number[] = [];
    for (let b = 0; b < BURST_BLOCKS; b++) {
      const first = b % 2 === 0 ? 'relay' : 'gate';
      const x = await blockMean(byPath[first], b);
      const y = await blockMean(byPath[first === 'relay' ? 'gate' : 'relay'], b);
      burstDiffs.push(first === 'gate' ? x - y : y - x);
    }
    const overRelay = Object.fromEntries(aboveRelay.map((p) => [p, { medianUs: median(relayDiffs[p]), p99Us: paths[p].p99Us - paths.relay.p99Us }])) as Record<(typeof aboveRelay)[number], PathStats>;
    return { rounds: ROUNDS, paths, overhead, overRelay, burstOverRelayUs: median(burstDiffs) };
  } catch (e) {
    return { skipped: `the MCP bench failed: ${e instanceof Error ? e.message : String(e)}`, rounds: 0 };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatMcpBench(r: McpBenchReport): string {
  if (r.skipped !== undefined || !r.paths || !r.overhead || !r.overRelay) return `MCP proxy: skipped (${r.skipped})`;
  const p = r.paths;
  const o = r.overhead;
  const a = r.overRelay;
  const row = (label: string, path: Proxied): string => {
    const above = path === 'relay' ? '' : `; above the relay: ${formatUs(a[path].medianUs)}`;
    return `  ${label.padEnd(36)} ${formatUs(p[path].medianUs)} / ${formatUs(p[path].p99Us)}   added: ${formatUs(o[path].medianUs)} median, ${formatUs(o[path].p99Us)} at p99${above}`;
  };
  return [
    `tools/call of server-everything's echo over stdio, ${r.rounds} alternating rounds (median / p99 per call):`,
    `  ${'direct to the server'.padEnd(36)} ${formatUs(p.direct.medianUs)} / ${formatUs(p.direct.p99Us)}`,
    row('through a dumb byte relay', 'relay'),
    row('through the proxy, gate on', 'gate'),
    row('  the same, audit log off', 'gateNoAudit'),
    row('through the proxy, --passthrough', 'passthrough'),
    `  back-to-back (${BURST_BLOCKS} blocks of ${BLOCK} calls, relay and gate alternating): gate above the relay ${formatUs(r.burstOverRelayUs ?? NaN)} per call`,
  ].join('\n');
}

export function mcpBenchRows(r: McpBenchReport): SummaryRow[] {
  const gate = 'MCP proxy: added per tools/call, gate on (median)';
  const pass = 'MCP proxy: added per tools/call, --passthrough (median)';
  const overRelay = 'MCP proxy: gate on, above a byte relay (median)';
  if (r.skipped !== undefined || !r.overhead || !r.overRelay) {
    return [skipRow('speed', gate, (r.skipped ?? 'not measured').slice(0, 60)), skipRow('speed', pass, 'not measured'), skipRow('speed', overRelay, 'not measured')];
  }
  return [
    targetRow('speed', overRelay, r.overRelay.gate.medianUs, '<=', TARGET_GATE_OVER_RELAY_US, formatUs),
    infoRow('speed', 'MCP: a byte relay process, above a direct call (median)', formatUs(r.overhead.relay.medianUs)),
    infoRow('speed', 'MCP proxy: gate on, above the relay, back-to-back calls', formatUs(r.burstOverRelayUs ?? NaN)),
    targetRow('speed', gate, r.overhead.gate.medianUs, '<=', TARGET_GATE_US, formatUs),
    infoRow('speed', 'MCP proxy: the same with the audit log off (median)', formatUs(r.overhead.gateNoAudit.medianUs)),
    targetRow('speed', pass, r.overhead.passthrough.medianUs, '<=', TARGET_PASS_US, formatUs),
  ];
}
