// The seed's text protocol: a model proposes a shell command by writing a line `EXECUTE: <command>` in its
// reply, one command at a time. This finds that line (or says why there is none, or too many) so that a
// dispatcher, or `asimov serve`'s POST /v1/proposals, can hand exactly that command to the gate.
//
// The grammar, precisely:
//   - The reply is split into lines at \r\n, \n or \r; a byte-order mark at its very start is ignored.
//   - A proposal line is: optional spaces or tabs, then `EXECUTE:` in capitals, then the command. Nothing
//     else may come before `EXECUTE:` on the line: a mention in the middle of a sentence ("then I would
//     EXECUTE: ls") is prose, not a proposal; so are `execute:` and `Execute:` (the protocol's word is the
//     capitalised one, and lower case is too common in prose to act on), `EXECUTE :` and markdown around
//     it (`- EXECUTE:`, `> EXECUTE:`, `**EXECUTE:**`).
//   - Lines inside a ``` or ~~~ fence count like any other line (models often fence the command); the fence
//     lines themselves never match.
//   - The command is the rest of the line, trimmed of white space, exactly as bash will get it: nothing is
//     unquoted or unwrapped (`EXECUTE: \`ls\`` proposes a command substitution, and the gate reads it so).
//     A command never spans lines.
//   - No proposal line: `none` (the model answered without a command: the conversation's end, for a
//     dispatcher). Exactly one: `command`, unless its command is empty or holds a NUL byte: `invalid`. More
//     than one (even the same command twice): `several`, and none of them is run; the model is told to send
//     one at a time.

/** The word that opens a proposal line. */
export const PROPOSAL_PREFIX = 'EXECUTE:';

export type Proposal =
  | { kind: 'none' }
  /** `line` is 1-based. */
  | { kind: 'command'; command: string; line: number }
  | { kind: 'several'; commands: string[]; lines: number[]; reason: string }
  | { kind: 'invalid'; line: number; reason: string };

const PROPOSAL_LINE = /^[ \t]*EXECUTE:(.*)$/;

export function extractProposal(text: string): Proposal {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const found: { command: string; line: number }[] = [];
  body.split(/\r\n|\n|\r/).forEach((l, i) => {
    const m = PROPOSAL_LINE.exec(l);
    if (m) found.push({ command: m[1]!.trim(), line: i + 1 });
  });
  if (found.length === 0) return { kind: 'none' };
  if (found.length > 1) {
    return {
      kind: 'several',
      commands: found.map((f) => f.command),
      lines: found.map((f) => f.line),
      reason: `The reply has ${found.length} ${PROPOSAL_PREFIX} lines (lines ${found.map((f) => f.line).join(', ')}); commands run one at a time, so none of them ran. Send exactly one ${PROPOSAL_PREFIX} line, wait for its result, then send the next.`,
    };
  }
  const { command, line } = found[0]!;
  if (command === '') return { kind: 'invalid', line, reason: `The ${PROPOSAL_PREFIX} line (line ${line}) has no command after it; write the command on the same line.` };
  if (command.includes('\0')) return { kind: 'invalid', line, reason: `The command on line ${line} contains a NUL byte, which no shell command can hold.` };
  return { kind: 'command', command, line };
}
