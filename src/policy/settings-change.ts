// What a Write or Edit does to an agent's JSON settings file: the file before (read from disk, never
// blocking) and after the call, parsed strictly and compared key by key. Harmless only when every changed
// key is on the agent's list of display and conversation preferences; anything not known for certain is not.

import { lstatSync } from 'node:fs';
import { extractPaths } from '../core/tools.ts';
import type { ToolCall } from '../core/types.ts';
import { changedLeaves, firstUnlistedChange, judgeableSettingsPath, settingsFileAt } from './agent-settings.ts';
import type { PathInfo } from './paths.ts';
import type { RuleContext } from './rule.ts';
import { parseSettings, settingsChanges, type JsonObject } from './settings-diff.ts';
import { editSteps, lexicalAbs, readCurrentText, writtenFiles, type EditStep } from './written-content.ts';

export type SettingsVerdict =
  | { harmless: true; agent: string; keys: string[] }
  | { harmless: false; why: string; /** Whether the path is named like a settings file asimov reads (the why is worth showing). */ settingsFile: boolean };

/** How many times `needle` occurs in `text`, overlapping occurrences counted (`aa` is twice in `aaa`). */
function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) n++;
  return n;
}

/**
 * Edits applied as Claude Code's Edit does when it succeeds: each old text found exactly once (or at least
 * once with replace_all). Null otherwise: the tool fails, or another client's fuzzy matching does something
 * this cannot predict.
 */
export function applyExactEdits(text: string, steps: readonly EditStep[]): string | null {
  let cur = text;
  for (const s of steps) {
    if (s.oldText === '') return null;
    const n = occurrences(cur, s.oldText);
    if (n === 0 || (!s.all && n !== 1)) return null;
    if (s.all) {
      cur = cur.split(s.oldText).join(s.newText);
    } else {
      const at = cur.indexOf(s.oldText);
      cur = cur.slice(0, at) + s.newText + cur.slice(at + s.oldText.length);
    }
  }
  return cur;
}

/**
 * Judge a write of `info` by `call`. Harmless only for a Write or Edit of exactly that one path, an agent
 * settings file recognised by its name, reached without symbolic links, not hard-linked elsewhere, whose
 * current and new texts both parse strictly, and whose changed keys are all on the agent's list.
 */
export function judgeSettingsWrite(call: ToolCall, info: PathInfo, ctx: RuleContext): SettingsVerdict {
  const abs = info.abs;
  const lexical = lexicalAbs(info.input, ctx.cwd, ctx.home);
  const file = lexical === null ? null : settingsFileAt(lexical, ctx.home);
  if (file === null || abs === null) return { harmless: false, why: 'it is not a settings file whose changes asimov can read', settingsFile: false };
  const no = (why: string): SettingsVerdict => ({ harmless: false, why, settingsFile: true });
  if (lexical !== abs) return no('it is reached through a symbolic link');
  if (!judgeableSettingsPath(info)) return no('the path is sensitive for another reason too');
  if (ctx.path(file.container).classes.has('agent-config')) return no("it sits inside another agent's configuration directory");
  if ((call.tool !== 'write' && call.tool !== 'edit') || call.clientTool === 'Delete') return no('the tool is not a plain Write or Edit');
  const paths = extractPaths(call.tool, call.input);
  if (paths.length !== 1) return no('the call writes more than one file');

  // The file as it is. A link, a FIFO or a hard link (the same bytes under another name) is not judged.
  try {
    const st = lstatSync(abs);
    if (!st.isFile()) return no('it is not a regular file');
    if (st.nlink > 1) return no('it is hard-linked to another name');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return no('the current file could not be read');
  }
  const cur = readCurrentText(abs);
  if (cur.status === 'unreadable') return no(`the current file could not be read: ${cur.why}`);

  const beforeText: string | null = cur.status === 'ok' ? cur.text : null;
  let afterText: string;
  if (call.tool === 'write') {
    const written = writtenFiles(call, ctx);
    const content = written.length === 1 && written[0]!.path.abs === abs ? written[0]!.content : null;
    if (content === null) return no('the new content is not known');
    afterText = content;
  } else {
    const steps = editSteps(call.input);
    if (steps === null) return no('the edit is in a shape asimov does not apply');
    if (beforeText === null) return no('the file does not exist yet');
    const edited = applyExactEdits(beforeText, steps);
    if (edited === null) return no('the text the edit replaces is not in the current file exactly once');
    afterText = edited;
  }

  let before: JsonObject = new Map();
  if (beforeText !== null) {
    const parsed = parseSettings(beforeText, file.kind.syntax);
    if (!parsed.ok) return no(`the current file cannot be read with certainty: ${parsed.why}`);
    before = parsed.value;
  }
  const after = parseSettings(afterText, file.kind.syntax);
  if (!after.ok) return no(`the new file cannot be read with certainty (${after.why}); ${file.kind.agent} may skip an invalid settings file whole, hooks and deny rules included`);

  const changes = settingsChanges(before, after.value);
  const unlisted = firstUnlistedChange(file.kind, changes);
  if (unlisted !== null) return no(`it changes \`${unlisted}\`, which is not a display or conversation preference asimov knows to be harmless`);
  return { harmless: true, agent: file.kind.agent, keys: changedLeaves(changes) };
}
