// `asimov audit verify`: recomputes every line's hash and link, and names the first line that breaks the chain.

import { describeError } from '../core/errors.ts';
import { GENESIS_HASH, eventHash, isAuditEvent } from './event.ts';
import { journalSummary } from './journal.ts';
import { readLogLines, type Out } from './reader.ts';

/**
 * Why a line breaks the chain.
 * - bad_json: the line is not JSON (edited by hand, corrupted, or a cut line that more lines followed);
 * - not_event: JSON, but not an audit event (no `v: 1`, or no well-formed `prev`/`hash`);
 * - truncated: the LAST line is incomplete, the mark of a writer interrupted mid-write or a cut file;
 * - hash_mismatch: the line's content does not match its own hash: the line was edited;
 * - prev_mismatch: the line does not point at the line before it: a line was inserted, deleted or
 *   reordered just before it (or, on line 1, lines were removed from the start).
 * Lines removed from the END leave a valid shorter chain; no chain without an outside anchor can see that.
 */
export type ChainProblem = 'bad_json' | 'not_event' | 'truncated' | 'hash_mismatch' | 'prev_mismatch';

export interface BrokenLine {
  /** 1-based line number in the file. */
  line: number;
  problem: ChainProblem;
  /** A sentence for people. */
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  /** Lines in the file. */
  lines: number;
  firstBroken?: BrokenLine;
}

/** Verifies the chain of a log. Throws AsimovError('audit_io_error') when the file cannot be read. */
export function verifyLog(path: string): VerifyResult {
  let expectedPrev = GENESIS_HASH;
  let lines = 0;
  let firstBroken: BrokenLine | undefined;
  for (const l of readLogLines(path)) {
    lines = l.line;
    if (firstBroken) continue; // keep counting lines only
    const r = checkLine(l.line, l.text, l.terminated, expectedPrev);
    if (typeof r === 'string') expectedPrev = r;
    else firstBroken = r;
  }
  return firstBroken ? { ok: false, lines, firstBroken } : { ok: true, lines };
}

/** The line's hash when it continues the chain, else what breaks it. */
function checkLine(n: number, text: string, terminated: boolean, expectedPrev: string): string | BrokenLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    if (!terminated) {
      return {
        line: n,
        problem: 'truncated',
        message: `line ${n}, the last line, is incomplete: a write was cut short (a crash or a full disk) or the file was truncated`,
      };
    }
    const why = text.trim() === '' ? 'it is empty' : (e as Error).message;
    return { line: n, problem: 'bad_json', message: `line ${n} is not valid JSON (${why}): it was edited, corrupted, or cut short by a crash` };
  }
  if (!isAuditEvent(parsed)) {
    return {
      line: n,
      problem: 'not_event',
      message: `line ${n} is not an asimov audit event (it needs v: 1 and 64-hex prev and hash fields)`,
    };
  }
  if (eventHash(parsed as unknown as Record<string, unknown>) !== parsed.hash) {
    return { line: n, problem: 'hash_mismatch', message: `line ${n} was edited: its content no longer matches its hash` };
  }
  if (parsed.prev !== expectedPrev) {
    const message =
      n === 1
        ? 'line 1 does not start a chain (its prev is not 64 zeros): lines were removed from the start of the log'
        : `line ${n} does not follow line ${n - 1} (its prev is not line ${n - 1}'s hash): a line was inserted, deleted or reordered here`;
    return { line: n, problem: 'prev_mismatch', message };
  }
  return parsed.hash;
}

/** The CLI form: prints the outcome; exit code 0 when the chain is intact, 1 when broken or unreadable. */
export function verifyCommand(path: string, out: Out, err: Out = out): number {
  let r: VerifyResult;
  try {
    r = verifyLog(path);
  } catch (e) {
    err(`asimov audit verify: ${describeError(e)}\n`);
    return 1;
  }
  if (r.ok) {
    out(`${path}: ${r.lines} event${r.lines === 1 ? '' : 's'}, chain intact\n`);
    // Said every time, because "intact" is easy to over-read: the chain is sealed with plain sha256 and no key.
    out(
      'A local check cannot see lines cut off the end, nor a log rewritten and re-sealed by whoever can write it; ' +
        'with audit.remote set, `asimov audit verify --remote` asks the team server, which kept every record as it arrived.\n',
    );
  }
  else out(`${path}: chain broken at line ${r.firstBroken?.line}: ${r.firstBroken?.message}\n`);
  // Records on their way into the log are not part of the chain yet: said, never counted as a break.
  const j = journalSummary(path);
  if (j.records > 0) {
    out(
      `${j.records} record${j.records === 1 ? '' : 's'} in ${j.files} MCP proxy journal${j.files === 1 ? '' : 's'} (${j.dir}) not in the log yet: ` +
        'a running proxy moves them right after each answer, and the next proxy to start moves those of one that stopped\n',
    );
  }
  for (const f of j.unreadable) out(`set aside, with a line that could not be read: ${f}\n`);
  return r.ok ? 0 : 1;
}
