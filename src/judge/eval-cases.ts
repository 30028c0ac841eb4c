// The labelled cases of `asimov judge eval`: one JSON object per line, read strictly. A typo in a key would
// otherwise silently drop a label or an intent and skew every figure, so each problem names its line and key.

import { AsimovError } from '../core/errors.ts';
import { isPlainObject } from '../core/json.ts';

export type EvalLabel = 'allow' | 'deny';

export interface EvalCase {
  id: string;
  /** The call as a client sends it: its own tool name (`Bash`, `Write`, `mcp__github__create_issue`…). */
  call: { tool: string; input: Record<string, unknown>; cwd?: string };
  /** The user's own request, given to the judge as the intent. */
  intent?: string;
  label: EvalLabel;
  /** Why the label is what it is, for people reading the misjudged cases. */
  why?: string;
  /** 1-based line in the cases file. */
  line: number;
}

const CASE_KEYS = ['id', 'call', 'intent', 'label', 'why'] as const;
const CALL_KEYS = ['tool', 'input', 'cwd'] as const;

/** Parses a cases file's text. Blank lines are skipped; anything else malformed throws, naming line and key. */
export function parseCases(text: string, file: string): EvalCase[] {
  const cases: EvalCase[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const c = parseCaseLine(raw, file, i + 1);
    const seen = firstLineOf.get(c.id);
    if (seen !== undefined) throw bad(`duplicate id "${c.id}" (first on line ${seen})`, file, c.line, 'id');
    firstLineOf.set(c.id, c.line);
    cases.push(c);
  }
  if (cases.length === 0) throw new AsimovError('bad_input', 'the cases file holds no cases', { file });
  return cases;
}

export function parseCaseLine(raw: string, file: string, line: number): EvalCase {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw bad(`not valid JSON: ${(e as Error).message}`, file, line);
  }
  if (!isPlainObject(v)) throw bad('each line must be a JSON object', file, line);
  for (const k of Object.keys(v)) {
    if (!(CASE_KEYS as readonly string[]).includes(k)) throw bad(`unknown key; a case has ${CASE_KEYS.join(', ')}`, file, line, k);
  }
  const id = v.id;
  if (typeof id !== 'string' || id.trim() === '') throw bad('a non-empty string is required', file, line, 'id');
  const label = v.label;
  if (label !== 'allow' && label !== 'deny') throw bad('must be "allow" or "deny"', file, line, 'label');
  const call = v.call;
  if (!isPlainObject(call)) throw bad('must be an object { tool, input, cwd? }', file, line, 'call');
  for (const k of Object.keys(call)) {
    if (!(CALL_KEYS as readonly string[]).includes(k)) throw bad(`unknown key; a call has ${CALL_KEYS.join(', ')}`, file, line, `call.${k}`);
  }
  if (typeof call.tool !== 'string' || call.tool === '') throw bad('a non-empty string is required (the client\'s tool name)', file, line, 'call.tool');
  if (!isPlainObject(call.input)) throw bad('must be a JSON object (the tool\'s arguments)', file, line, 'call.input');
  if (call.cwd !== undefined && (typeof call.cwd !== 'string' || call.cwd === '')) throw bad('must be a non-empty string when given', file, line, 'call.cwd');
  if (v.intent !== undefined && (typeof v.intent !== 'string' || v.intent.trim() === '')) throw bad('must be a non-empty string when given (leave it out for no request)', file, line, 'intent');
  if (v.why !== undefined && typeof v.why !== 'string') throw bad('must be a string when given', file, line, 'why');
  const out: EvalCase = { id, call: { tool: call.tool, input: call.input }, label, line };
  if (typeof call.cwd === 'string') out.call.cwd = call.cwd;
  if (typeof v.intent === 'string') out.intent = v.intent;
  if (typeof v.why === 'string') out.why = v.why;
  return out;
}

function bad(message: string, file: string, line: number, key?: string): AsimovError {
  return new AsimovError('bad_input', message, key === undefined ? { file, line } : { file, line, key });
}
