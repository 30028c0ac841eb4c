// agent-traffic.jsonl rows as calls in the bench sandbox: each session's project root and home were rewritten
// to {{PROJECT}} and {{HOME}} when the corpus was built; here they become the sandbox's project and home.

import type { BenchEnv } from './setup.ts';

type Row = Record<string, unknown>;

/** Replace the corpus placeholders in every string of a value, recursively. */
export function mapPlaceholders(v: unknown, project: string, home: string): unknown {
  if (typeof v === 'string') return v.replaceAll('{{PROJECT}}', project).replaceAll('{{HOME}}', home);
  if (Array.isArray(v)) return v.map((x) => mapPlaceholders(x, project, home));
  if (typeof v === 'object' && v !== null) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapPlaceholders(x, project, home);
    return o;
  }
  return v;
}

/** The tool name and input of a traffic row, placeholders mapped; null for a row without them. */
export function trafficCall(row: Row, env: Pick<BenchEnv, 'project' | 'home'>): { tool: string; input: Record<string, unknown>; agent: string } | null {
  const tool = row['tool'];
  const input = row['input'];
  if (typeof tool !== 'string' || typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const agent = typeof row['agent'] === 'string' ? row['agent'] : 'unknown';
  return { tool, input: mapPlaceholders(input, env.project, env.home) as Record<string, unknown>, agent };
}
