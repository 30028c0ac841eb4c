// Reading the audit log: lines streamed in constant memory, events parsed and filtered, and `audit tail`.

import { closeSync, openSync, readSync } from 'node:fs';
import picomatch from 'picomatch';
import { AsimovError, describeError } from '../core/errors.ts';
import { isTier, type Tier, type Verdict } from '../core/types.ts';
import { isAuditEvent, type AuditEvent } from './event.ts';

/** Where a command writes its output (process.stdout.write, or a test's collector). */
export type Out = (s: string) => void;

const CHUNK = 64 * 1024;

export interface LogLine {
  /** 1-based. */
  line: number;
  text: string;
  /** False only for a last line with no newline after it (a write cut short). */
  terminated: boolean;
}

/**
 * The lines of a file, read in 64 KiB chunks, so a log of any size is read in constant memory (plus
 * the longest line). Throws AsimovError('audit_io_error') when the file cannot be read.
 */
export function* readLogLines(path: string): Generator<LogLine> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw ioError(path, e);
  }
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let pending: Buffer[] = [];
    let line = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, CHUNK, null);
      } catch (e) {
        throw ioError(path, e);
      }
      if (n === 0) break;
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0 && nl < n; nl = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, nl));
        yield { line: ++line, text: Buffer.concat(pending).toString('utf8'), terminated: true };
        pending = [];
        start = nl + 1;
      }
      // Copy: the chunk buffer is reused by the next read.
      if (start < n) pending.push(Buffer.from(chunk.subarray(start, n)));
    }
    if (pending.length > 0) yield { line: ++line, text: Buffer.concat(pending).toString('utf8'), terminated: false };
  } finally {
    closeSync(fd);
  }
}

function ioError(path: string, e: unknown): AsimovError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const msg = code === 'ENOENT' ? 'no audit log (the file does not exist)' : `cannot read the audit log: ${describeError(e)}`;
  return new AsimovError('audit_io_error', msg, { file: path }, { cause: e });
}

/** Which events to keep. Every given condition must hold. */
export interface AuditFilter {
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
  verdict?: readonly Verdict[];
  tier?: readonly Tier[];
  /** A glob over rule ids (`fs.*`, `git.force-push`); events without a rule never match. */
  rule?: string;
  /** Matches the normalized tool (`shell`) or the client's name for it (`Bash`). */
  tool?: string;
  agent?: string;
  session?: string;
}

/** The filter as a command line gives it: strings, lists comma-separated, times absolute or relative. */
export interface AuditFilterArgs {
  since?: string;
  until?: string;
  verdict?: string;
  tier?: string;
  rule?: string;
  tool?: string;
  agent?: string;
  session?: string;
}

const VERDICTS: readonly Verdict[] = ['allow', 'deny', 'ask'];
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `15m`, `2h`, `7d`, `1w` before now, or an ISO date/time (`2026-11-22`, `2026-11-22T14:50:00Z`). */
export function parseTime(s: string, now: Date = new Date()): Date {
  const t = s.trim();
  const rel = /^(\d+)\s*([smhdw])$/.exec(t);
  if (rel) return new Date(now.getTime() - Number(rel[1]) * (UNIT_MS[rel[2] ?? 's'] ?? 1000));
  const ms = /^\d{4}-\d{2}-\d{2}/.test(t) ? Date.parse(t) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new AsimovError('usage', `cannot read the time "${s}": use a duration before now (30m, 2h, 7d) or an ISO date (2026-11-22T14:50:00Z)`);
  }
  return new Date(ms);
}

function list(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/** Turns command-line strings into a filter; throws AsimovError('usage') naming the bad value. */
export function parseFilter(args: AuditFilterArgs, now: Date = new Date()): AuditFilter {
  const f: AuditFilter = {};
  if (args.since !== undefined) f.since = parseTime(args.since, now);
  if (args.until !== undefined) f.until = parseTime(args.until, now);
  if (args.verdict !== undefined) {
    const vs = list(args.verdict.toLowerCase());
    for (const v of vs) {
      if (!(VERDICTS as readonly string[]).includes(v)) {
        throw new AsimovError('usage', `unknown verdict "${v}" (expected ${VERDICTS.join(', ')})`);
      }
    }
    f.verdict = vs as Verdict[];
  }
  if (args.tier !== undefined) {
    const ts = list(args.tier.toLowerCase());
    for (const t of ts) {
      if (!isTier(t)) throw new AsimovError('usage', `unknown tier "${t}" (expected allow, unknown, soft_deny, hard_deny)`);
    }
    f.tier = ts as Tier[];
  }
  if (args.rule !== undefined) f.rule = args.rule;
  if (args.tool !== undefined) f.tool = args.tool;
  if (args.agent !== undefined) f.agent = args.agent;
  if (args.session !== undefined) f.session = args.session;
  return f;
}

/** A predicate for the filter (the rule glob is compiled once). */
export function compileFilter(f: AuditFilter = {}): (e: AuditEvent) => boolean {
  const ruleMatch = f.rule !== undefined ? picomatch(f.rule, { dot: true }) : null;
  const since = f.since?.getTime();
  const until = f.until?.getTime();
  return (e) => {
    if (since !== undefined || until !== undefined) {
      const t = Date.parse(e.ts);
      if (Number.isNaN(t)) return false;
      if (since !== undefined && t < since) return false;
      if (until !== undefined && t >= until) return false;
    }
    if (f.verdict && !f.verdict.includes(e.verdict)) return false;
    if (f.tier && !f.tier.includes(e.tier)) return false;
    if (ruleMatch && (typeof e.rule !== 'string' || !ruleMatch(e.rule))) return false;
    if (f.tool !== undefined && e.tool !== f.tool && e.client_tool !== f.tool) return false;
    if (f.agent !== undefined && e.agent !== f.agent) return false;
    if (f.session !== undefined && e.session !== f.session) return false;
    return true;
  };
}

export interface ReadEventsOptions {
  filter?: AuditFilter;
  /** Called for each line that is not an event (bad JSON, a cut last line), which is then skipped. */
  onSkip?: (line: number, why: string) => void;
}

/** The events of a log in file order, filtered; lines that are not events are skipped and reported. */
export function* readEvents(path: string, opts: ReadEventsOptions = {}): Generator<AuditEvent> {
  const keep = compileFilter(opts.filter);
  for (const l of readLogLines(path)) {
    if (l.text.trim() === '') {
      opts.onSkip?.(l.line, 'empty line');
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(l.text);
    } catch {
      opts.onSkip?.(l.line, l.terminated ? 'not valid JSON' : 'incomplete last line');
      continue;
    }
    if (!isAuditEvent(parsed)) {
      opts.onSkip?.(l.line, 'not an audit event');
      continue;
    }
    if (keep(parsed)) yield parsed;
  }
}

const SUMMARY_MAX = 80;

/** A one-line gist of what the call did: the command, the path, the URL, else its arguments. */
export function summarizeInput(e: Pick<AuditEvent, 'tool' | 'client_tool' | 'input'>): string {
  const input = e.input ?? {};
  const pick = (...keys: string[]): string | undefined => {
    for (const k of keys) {
      const v = input[k];
      if (typeof v === 'string' && v !== '') return v;
    }
    return undefined;
  };
  let s = pick('command', 'cmd', 'file_path', 'path', 'notebook_path', 'url', 'pattern', 'query');
  if (s === undefined) {
    const json = JSON.stringify(input);
    s = e.tool === 'mcp' || e.client_tool?.startsWith('mcp__') ? `${e.client_tool ?? e.tool} ${json}` : json;
  }
  const oneLine = s.replace(/\s+/g, ' ').trim();
  return oneLine.length > SUMMARY_MAX ? `${oneLine.slice(0, SUMMARY_MAX - 1)}…` : oneLine;
}

/** `14:50:00 DENY hard_deny fs.rm-root  rm -rf /  — reason`; the date is added when asked (logs spanning days). */
export function formatEventLine(e: AuditEvent, withDate = false, paint: (verdict: string) => string = (v) => v): string {
  const d = new Date(e.ts);
  const iso = Number.isNaN(d.getTime()) ? e.ts : d.toISOString();
  const time = withDate ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(11, 19);
  const reason = e.reason.replace(/\s+/g, ' ').trim();
  return `${time} ${paint(e.verdict.toUpperCase())} ${e.tier} ${e.rule ?? '-'}  ${summarizeInput(e)}  — ${reason}`;
}

export interface TailOptions {
  /** How many events; default 20. */
  n?: number;
  /** One JSON event per line instead of the readable form. */
  json?: boolean;
  filter?: AuditFilter;
  /** Where warnings go (skipped lines); default the output. */
  err?: Out;
  /** Colours a verdict word for a terminal (the CLI's style); default: plain. */
  paint?: (verdict: string) => string;
}

export const DEFAULT_TAIL = 20;

/** `asimov audit tail`: the last N matching events. Exit code 0, or 1 when the log cannot be read. */
export function tailCommand(path: string, out: Out, opts: TailOptions = {}): number {
  const err = opts.err ?? out;
  const n = opts.n ?? DEFAULT_TAIL;
  if (!Number.isInteger(n) || n < 0) {
    err(`asimov audit tail: the count must be a whole number, not ${n}\n`);
    return 1;
  }
  // A ring of the last n events: the whole log streams through, only n stay in memory.
  const slots: AuditEvent[] = [];
  let seen = 0;
  let skipped = 0;
  try {
    for (const e of readEvents(path, { filter: opts.filter, onSkip: () => { skipped++; } })) {
      if (n === 0) continue;
      slots[seen % n] = e;
      seen++;
    }
  } catch (e) {
    err(`asimov audit tail: ${describeError(e)}\n`);
    return 1;
  }
  const ring = seen <= n ? slots : [...slots.slice(seen % n), ...slots.slice(0, seen % n)];
  if (opts.json) {
    for (const e of ring) out(`${JSON.stringify(e)}\n`);
  } else {
    const first = ring[0]?.ts.slice(0, 10);
    const withDate = ring.some((e) => e.ts.slice(0, 10) !== first);
    for (const e of ring) out(`${formatEventLine(e, withDate, opts.paint)}\n`);
  }
  if (skipped > 0) err(`asimov audit tail: skipped ${skipped} line(s) that are not events; run \`asimov audit verify\`\n`);
  return 0;
}
