// Strict reading of the judge's reply. The only acceptable reply is one JSON object with exactly two
// keys: `verdict`, one of allow | deny | unsure, and a non-empty `reason`. Anything else (prose, both
// words, a truncated or empty body, extra text or keys) is `unsure`: a reply we had to guess at must
// never open the gate.

import type { JudgeVerdict } from './types.ts';

/** The reply's shape, given to each provider's structured-output feature (tool input, json_schema, --json-schema). */
export const VERDICT_JSON_SCHEMA = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['allow', 'deny', 'unsure'], description: 'allow, deny, or unsure when a person should decide' },
    reason: { type: 'string', description: 'one or two sentences: what the call would do, and which rule it breaks or why it is fine' },
  },
  required: ['verdict', 'reason'],
  additionalProperties: false,
} as const;

/** Longest reason kept; the rest is cut (it is shown to the agent and written to the audit log). */
export const MAX_REASON_CHARS = 1_000;

export type ParsedVerdict =
  | { ok: true; verdict: JudgeVerdict; reason: string }
  /** Not a valid verdict; `problem` says what was wrong, for the audit. */
  | { ok: false; problem: string };

const VERDICTS: readonly string[] = ['allow', 'deny', 'unsure'];

function bad(problem: string): ParsedVerdict {
  return { ok: false, problem };
}

/** A verdict given as a value (a forced tool call's input, structured output). */
export function parseVerdictValue(value: unknown): ParsedVerdict {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('the reply is not a JSON object');
  const keys = Object.keys(value);
  const extra = keys.filter((k) => k !== 'verdict' && k !== 'reason');
  if (extra.length > 0) return bad(`the reply has keys other than verdict and reason: ${extra.slice(0, 5).join(', ')}`);
  const { verdict, reason } = value as { verdict?: unknown; reason?: unknown };
  if (typeof verdict !== 'string') return bad('the reply has no verdict');
  if (!VERDICTS.includes(verdict)) return bad(`the verdict ${JSON.stringify(verdict.slice(0, 40))} is not one of allow, deny, unsure`);
  if (typeof reason !== 'string') return bad('the reply has no reason');
  const clean = cleanReason(reason);
  if (clean === '') return bad('the reason is empty');
  return { ok: true, verdict: verdict as JudgeVerdict, reason: clean };
}

/** A verdict given as text: the text must be the JSON object and nothing else (surrounding whitespace aside). */
export function parseVerdictText(text: string): ParsedVerdict {
  const t = text.trim();
  if (t === '') return bad('the reply is empty');
  if (!t.startsWith('{') || !t.endsWith('}')) return bad('the reply is not only a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return bad('the reply is not valid JSON (truncated?)');
  }
  return parseVerdictValue(value);
}

/** One line, no control characters, bounded: the reason ends up in a hook reply and a log line. */
function cleanReason(s: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS - 1)}…` : flat;
}
