// The user's own request, from a Claude Code transcript (the JSONL file a hook payload names in
// `transcript_path`). Only what the person typed is taken: entries of type "user" whose message is a
// string or text blocks. Never tool results (they carry file contents and web pages, where an attacker
// writes), never assistant text, never the CLI's own entries (meta lines, slash-command output, summaries
// the model wrote, sub-agent prompts the model wrote). Verified against Claude Code 2.1.330's transcripts.
//
// Transcripts grow to many megabytes of tool output, so the file is read backwards in chunks from the end
// until enough messages are found or a read limit is reached. Anything unreadable means "no intent".

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface IntentOptions {
  /** How many of the latest user messages to keep (default 3). */
  maxMessages?: number;
  /** Total characters kept, newest first (default 4000). */
  maxChars?: number;
  /** Bytes read from the end of the file at most (default 16 MiB). */
  maxBytes?: number;
}

const CHUNK = 256 * 1024;
/** A line longer than this is a tool output or a paste too large to be a request worth sending; skipped unparsed. */
const MAX_LINE_BYTES = 1024 * 1024;
/** Text Claude Code puts in user entries itself: slash commands and their output, shell-mode output, reminders. */
const GENERATED_PREFIX = /^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr|system-reminder|user-prompt-submit-hook|task-notification)>/;
const GENERATED_EXACT = new Set(['[Request interrupted by user]', '[Request interrupted by user for tool use]']);

/** The text a person typed in one transcript entry, or undefined when the entry is anything else. */
export function typedText(entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object') return undefined;
  const e = entry as Record<string, unknown>;
  if (e.type !== 'user') return undefined;
  if (e.isMeta === true || e.isSidechain === true || e.isCompactSummary === true || e.isVisibleInTranscriptOnly === true) return undefined;
  if (e.userType !== undefined && e.userType !== 'external') return undefined;
  if (e.toolUseResult !== undefined) return undefined;
  const msg = e.message as { role?: unknown; content?: unknown } | undefined;
  if (!msg || msg.role !== 'user') return undefined;
  let text: string;
  if (typeof msg.content === 'string') text = msg.content;
  else if (Array.isArray(msg.content)) {
    const parts: string[] = [];
    for (const b of msg.content) {
      const block = b as { type?: unknown; text?: unknown } | null;
      if (!block || typeof block !== 'object') return undefined;
      // A tool result anywhere makes the whole entry tool output, not something typed.
      if (block.type === 'tool_result') return undefined;
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    }
    text = parts.join('\n');
  } else return undefined;
  const t = text.trim();
  if (t === '' || GENERATED_PREFIX.test(t) || GENERATED_EXACT.has(t)) return undefined;
  return t;
}

/**
 * The latest user-typed messages of a transcript, oldest first and separated by blank lines, or undefined
 * when there are none or the file cannot be read.
 */
export function readIntent(path: string, o: IntentOptions = {}): string | undefined {
  const maxMessages = o.maxMessages ?? 3;
  const maxChars = o.maxChars ?? 4000;
  const maxBytes = o.maxBytes ?? 16 * 1024 * 1024;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  const found: string[] = []; // newest first
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    let pos = fstatSync(fd).size;
    const stop = Math.max(0, pos - maxBytes);
    let carry: Buffer = Buffer.alloc(0); // the start of a line whose beginning is in an earlier chunk
    let carryTooLong = false;
    while (pos > stop && found.length < maxMessages) {
      const len = Math.min(CHUNK, pos - stop);
      pos -= len;
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, pos);
      let end = buf.length;
      // Lines are complete once a newline before them is seen; walk them from the back of this chunk.
      for (let i = buf.length - 1; i >= 0 && found.length < maxMessages; i--) {
        if (buf[i] !== 0x0a) continue;
        takeLine(buf.subarray(i + 1, end), carry, carryTooLong, found);
        carry = Buffer.alloc(0);
        carryTooLong = false;
        end = i;
      }
      if (found.length >= maxMessages) break;
      const head = buf.subarray(0, end);
      if (carryTooLong || head.length + carry.length > MAX_LINE_BYTES) {
        carry = Buffer.alloc(0);
        carryTooLong = true;
      } else carry = Buffer.concat([head, carry]);
    }
    // The file's first line has no newline before it.
    if (pos === 0 && found.length < maxMessages && !carryTooLong && carry.length > 0) takeLine(carry, Buffer.alloc(0), false, found);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  if (found.length === 0) return undefined;
  return joinWithin(found.slice(0, maxMessages), maxChars);
}

function takeLine(part: Buffer, carry: Buffer, carryTooLong: boolean, found: string[]): void {
  if (carryTooLong || part.length + carry.length > MAX_LINE_BYTES) return;
  const line = (carry.length > 0 ? Buffer.concat([part, carry]) : part).toString('utf8').trim();
  // Cheap pre-check before parsing: a user entry names its type.
  if (line === '' || !line.includes('"user"')) return;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return; // a line being written right now, or damage: skipped
  }
  const t = typedText(entry);
  if (t !== undefined) found.push(t);
}

/** Newest messages kept first, each cut from its start if needed; returned oldest first. */
function joinWithin(newestFirst: string[], maxChars: number): string | undefined {
  const kept: string[] = [];
  let left = maxChars;
  for (const m of newestFirst) {
    if (left <= 0) break;
    kept.push(m.length <= left ? m : `…${m.slice(m.length - left + 1)}`);
    left -= m.length + 2;
  }
  return kept.length > 0 ? kept.reverse().join('\n\n') : undefined;
}
