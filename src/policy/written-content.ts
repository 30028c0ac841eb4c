// What a file tool call puts in a file: the file as it will be after the call (Write's content; Edit and
// MultiEdit applied to the current file read from disk), or the pieces it adds when the whole cannot be known.

import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import { NotRegularFileError, readRegularFile } from '../core/read-regular.ts';
import type { ToolCall } from '../core/types.ts';
import { extractPaths, parseMcpName } from '../core/tools.ts';
import type { PathInfo } from './paths.ts';
import type { RuleContext } from './rule.ts';
import { toolPath } from './tool-paths.ts';

/** One file a call writes and what it will hold. */
export interface WrittenFile {
  path: PathInfo;
  /**
   * The whole file as it will be after the call, or null when that cannot be known (the current file is
   * unreadable or too large, an edit's old text is not in it, a notebook cell).
   */
  content: string | null;
  /** When content is null: the text the call adds somewhere in the file (new_string, new_source, added lines). */
  fragments: string[];
  /** Why content is null, for reasons ("the current file could not be read"). */
  unknownWhy?: string;
}

/** The most of a current file read to apply an edit to; a larger file is judged by the edit's text alone. */
export const MAX_CURRENT_BYTES = 1 << 20;

export type ReadResult = { status: 'ok'; text: string } | { status: 'absent' } | { status: 'unreadable'; why: string };

/** Kernel pseudo-file systems: reading them can block, or has side effects; nothing there is a file that runs later. */
const PSEUDO_FS = /^\/(?:proc|sys|dev)(?:\/|$)/;

/**
 * The text of a regular file, at most `max` bytes, without ever blocking: lstat first (a FIFO, socket,
 * device or link is never opened), then core's non-blocking read, which checks again on the open descriptor.
 */
export function readCurrentText(abs: string, max: number = MAX_CURRENT_BYTES): ReadResult {
  if (PSEUDO_FS.test(abs)) return { status: 'unreadable', why: 'it is in a kernel pseudo-file system' };
  let st;
  try {
    st = lstatSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { status: 'absent' } : { status: 'unreadable', why: `it could not be read (${code ?? 'error'})` };
  }
  if (!st.isFile()) return { status: 'unreadable', why: 'it is not a regular file' };
  if (st.size > max) return { status: 'unreadable', why: `it is larger than ${max} bytes` };
  try {
    const buf = readRegularFile(abs, max);
    return buf === undefined ? { status: 'absent' } : { status: 'ok', text: buf.toString('utf8') };
  } catch (e) {
    if (e instanceof NotRegularFileError) return { status: 'unreadable', why: e.code === 'too_large' ? `it is larger than ${max} bytes` : 'it is not a regular file' };
    return { status: 'unreadable', why: `it could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** One replacement of an edit tool, in the shapes the clients send. */
export interface EditStep {
  oldText: string;
  newText: string;
  all: boolean;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** An edit step from Claude's {old_string,new_string,replace_all}, MCP's {oldText,newText}, Cursor/Gemini variants. */
function stepOf(o: unknown): EditStep | null {
  if (typeof o !== 'object' || o === null) return null;
  const r = o as Record<string, unknown>;
  const oldText = str(r['old_string']) ?? str(r['oldText']) ?? str(r['old_str']) ?? str(r['old']);
  const newText = str(r['new_string']) ?? str(r['newText']) ?? str(r['new_str']) ?? str(r['new']);
  if (oldText === null || newText === null) return null;
  const n = r['expected_replacements'];
  return { oldText, newText, all: r['replace_all'] === true || (typeof n === 'number' && n > 1) };
}

/**
 * Apply edits in order to `text`, as the edit tools do (the first occurrence, or every one with
 * replace_all). Null when an old text is not found: the tool would fail, or (fuzzy matching) do something
 * this cannot predict.
 */
export function applyEdits(text: string, steps: readonly EditStep[]): string | null {
  let cur = text;
  for (const s of steps) {
    if (s.oldText === '') return null;
    const at = cur.indexOf(s.oldText);
    if (at < 0) return null;
    cur = s.all ? cur.split(s.oldText).join(s.newText) : cur.slice(0, at) + s.newText + cur.slice(at + s.oldText.length);
  }
  return cur;
}

/** The edit steps of an edit call, or null when it is not a text edit (a notebook, a patch, a delete). */
export function editSteps(input: Record<string, unknown>): EditStep[] | null {
  const list = input['edits'];
  if (Array.isArray(list)) {
    const steps = list.map(stepOf);
    return steps.every((s) => s !== null) ? (steps as EditStep[]) : null;
  }
  const one = stepOf(input);
  return one ? [one] : null;
}

/** The file an edit applies to, as it will be, read from disk; or the new texts as fragments when it cannot be known. */
function editedFile(path: PathInfo, steps: EditStep[]): WrittenFile {
  const fragments = steps.map((s) => s.newText).filter((t) => t !== '');
  if (path.abs === null) return { path, content: null, fragments, unknownWhy: 'where the file is is only known at run time' };
  const cur = readCurrentText(path.abs);
  if (cur.status === 'absent') {
    // An edit with an empty old text creates the file (Claude Code); any other edit of a missing file fails.
    if (steps.length === 1 && steps[0]!.oldText === '') return { path, content: steps[0]!.newText, fragments: [] };
    return { path, content: null, fragments, unknownWhy: 'the file does not exist yet' };
  }
  if (cur.status === 'unreadable') return { path, content: null, fragments, unknownWhy: `the current file could not be read: ${cur.why}` };
  const after = applyEdits(cur.text, steps);
  if (after === null) return { path, content: null, fragments, unknownWhy: 'the text the edit replaces is not in the current file' };
  return { path, content: after, fragments: [] };
}

/**
 * Files a Codex-style patch (`*** Add File:` / `*** Update File:`) or a unified diff writes: an added file's
 * whole content, and for an updated one the lines it adds (as one fragment).
 */
export function patchWrites(text: string): { path: string; content: string | null; added: string }[] {
  const out: { path: string; content: string | null; added: string }[] = [];
  const lines = text.split('\n');
  let cur: { path: string; content: string | null; added: string[] } | null = null;
  const flush = (): void => {
    if (cur) out.push({ path: cur.path, content: cur.content === null ? null : cur.added.join('\n') + (cur.added.length ? '\n' : ''), added: cur.added.join('\n') });
    cur = null;
  };
  for (const line of lines) {
    let m = /^\*\*\* (Add|Update) File: (.+?)\s*$/.exec(line);
    if (m) {
      flush();
      cur = { path: m[2]!, content: m[1] === 'Add' ? '' : null, added: [] };
      continue;
    }
    m = /^\+\+\+ (?:b\/)?(.+?)\s*$/.exec(line);
    if (m) {
      flush();
      if (m[1] !== '/dev/null') cur = { path: m[1]!, content: null, added: [] };
      continue;
    }
    if (/^\*\*\* (?:Delete File|End Patch|Move to)/.test(line) || line.startsWith('diff --git ')) {
      flush();
      continue;
    }
    if (cur && line.startsWith('+')) (cur as { added: string[] }).added.push(line.slice(1));
  }
  flush();
  return out;
}

/** The MCP filesystem server's tool names that put text in a file, with the shape of their arguments. */
const MCP_WRITE = new Set(['write_file']);
const MCP_EDIT = new Set(['edit_file']);

/**
 * Every file a non-shell call writes text into, with what it will hold. Deleting, moving and creating
 * directories put no text anywhere and are left to the path rules.
 */
export function writtenFiles(call: ToolCall, ctx: RuleContext): WrittenFile[] {
  const input = call.input;
  if (!input || typeof input !== 'object') return [];
  if (call.tool === 'mcp') {
    const name = parseMcpName(call.clientTool ?? '') ?? parseMcpName(call.tool);
    const p = str(input['path']);
    if (!name || p === null) return [];
    if (MCP_WRITE.has(name.tool)) {
      const content = str(input['content']);
      return [{ path: ctx.path(p), content, fragments: [], ...(content === null ? { unknownWhy: 'the call carries no text content' } : {}) }];
    }
    if (MCP_EDIT.has(name.tool)) {
      // A dry run changes nothing.
      if (input['dryRun'] === true) return [];
      const steps = editSteps(input);
      return steps ? [editedFile(ctx.path(p), steps)] : [];
    }
    return [];
  }
  if (call.tool !== 'write' && call.tool !== 'edit') return [];
  // A patch (apply_patch, a unified diff) names its own files; only an edit tool carries one.
  if (call.tool === 'edit' && editSteps(input) === null && str(input['new_source']) === null) {
    const patched = patchFiles(input, ctx, call);
    if (patched) return patched;
  }
  const paths = extractPaths(call.tool, input);
  const first = paths[0];
  if (first === undefined) return [];
  const path = toolPath(call, ctx, first);
  if (call.clientTool === 'Delete') return [];
  const source = str(input['new_source']);
  if (source !== null || str(input['notebook_path']) !== null) {
    // A notebook cell: the file is JSON around it; the cell's text is what was added.
    if (input['edit_mode'] === 'delete') return [];
    return [{ path, content: null, fragments: source ? [source] : [], unknownWhy: 'a notebook edit changes one cell' }];
  }
  if (call.tool === 'write') {
    const content = str(input['content']) ?? str(input['file_text']) ?? str(input['text']) ?? str(input['contents']);
    return [{ path, content, fragments: [], ...(content === null ? { unknownWhy: 'the call carries no text content' } : {}) }];
  }
  const steps = editSteps(input);
  if (steps) return [editedFile(path, steps)];
  // An edit in a shape this does not know: whatever strings it carries are what it may add.
  const texts = Object.entries(input).filter(([k, v]) => typeof v === 'string' && !/path|file/i.test(k)).map(([, v]) => v as string);
  return [{ path, content: null, fragments: texts, unknownWhy: 'the edit is in a shape asimov does not apply' }];
}

/** The files a patch in one of the call's string arguments writes, or null when it carries no patch. */
function patchFiles(input: Record<string, unknown>, ctx: RuleContext, call: ToolCall): WrittenFile[] | null {
  for (const v of Object.values(input)) {
    if (typeof v !== 'string' || !(v.includes('*** Add File: ') || v.includes('*** Update File: ') || v.startsWith('+++ ') || v.includes('\n+++ '))) continue;
    const writes = patchWrites(v);
    if (writes.length === 0) continue;
    return writes.map((w) => (w.content !== null
      ? { path: toolPath(call, ctx, w.path), content: w.content, fragments: [] }
      : { path: toolPath(call, ctx, w.path), content: null, fragments: w.added === '' ? [] : [w.added], unknownWhy: 'a patch changes part of the file' }));
  }
  return null;
}

/** The path as written, made absolute without resolving links (a link named `.husky/pre-commit` is still the hook). */
export function lexicalAbs(input: string, cwd: string, home: string): string | null {
  if (input.includes('$') || input.includes('`')) return null;
  if (input === '~' || input.startsWith('~/')) return posix.join(home, input.slice(1));
  if (input.startsWith('~')) return null;
  return posix.resolve(cwd, input);
}
