// What shell analysis hands to the rules: every simple command that would run, with its words
// resolved where bash would resolve them statically, and marked dynamic where it would not.

/** One shell word after quote removal. */
export interface Word {
  /** The word as written in the source, quotes included. */
  raw: string;
  /**
   * The word after quote removal and ANSI-C decoding. Each part bash would expand at run time
   * (`$x`, `${x}`, `$(…)`, `` `…` ``, `$((…))`, `<(…)`) stays as its source text, e.g. `$HOME/.ssh`.
   * A leading unquoted `~` stays `~` (path classification expands it).
   */
  value: string;
  /** True when `value` is exactly the argument bash would pass: no expansion, no unquoted glob. */
  literal: boolean;
  /** Contains an unquoted `*`, `?` or `[…]` (pathname expansion) or extglob. */
  glob: boolean;
  /** Names of the parameters it expands (`HOME`, `1`, `@`, …). */
  vars: string[];
  /** Ids of the commands run by substitutions inside this word ($(…), backticks, <(…), >(…)). */
  substitutions: number[];
  /** Kinds of substitution inside this word, in source order. */
  substitutionKinds: SubstitutionKind[];
  /**
   * Set when `value` is the POSIX reading of a Windows path as written (`.\gradlew` -> `./gradlew`,
   * `"C:\Users\x"` -> `/c/Users/x`): words.ts windowsPath. `raw` keeps what was written.
   */
  windows?: true;
}

export type SubstitutionKind = 'command' | 'backtick' | 'process-in' | 'process-out' | 'arithmetic';

export type RedirectOp =
  | '>' | '>>' | '>|' | '<' | '<>' | '&>' | '&>>' | '>&' | '<&' | '<<' | '<<-' | '<<<';

export interface Redirect {
  op: RedirectOp;
  /** The file descriptor on the left (`2>`), or undefined for the operator's default. */
  fd?: number;
  /** The target: a file name, an fd number for `>&`/`<&`, a here-string's word, or a here-doc's delimiter. */
  target: Word;
  /** For `<<`/`<<-`: the body, and whether the delimiter was quoted (then the body is not expanded). */
  heredoc?: { body: string; quoted: boolean };
  /** 'write' for output redirections to a file, 'read' for input from a file, 'fd' for fd duplication, 'data' for here-docs and here-strings. */
  access: 'write' | 'read' | 'fd' | 'data';
}

export interface Assignment {
  name: string;
  value: Word;
  append: boolean;
  /** `a=(x y)` array assignment: its elements. */
  array?: Word[];
}

/** How a command's standard input is fed. */
export type StdinSource =
  | { kind: 'tty' }
  | { kind: 'pipe'; from: number[] }
  | { kind: 'heredoc'; body: string; quoted: boolean }
  | { kind: 'herestring'; word: Word }
  | { kind: 'file'; path: Word };

/** One simple command that would run. */
export interface SimpleCommand {
  /** Index in Analysis.commands. */
  id: number;
  /** Arguments after brace expansion; argv[0] is the program. Empty for a bare assignment or redirection. */
  argv: Word[];
  /** `NAME=value` prefixes (or a bare assignment statement when argv is empty). */
  assignments: Assignment[];
  redirects: Redirect[];
  stdin: StdinSource;
  /** Ids of the commands that read this command's standard output through a pipe. */
  pipeTo: number[];
  /** True when it runs inside a substitution ($(…), backticks, <(…)). */
  inSubstitution: boolean;
  /** True when it is the body of a function definition (runs only if the function is called). */
  inFunction: boolean;
  /** Re-parse depth: 0 for the top line, +1 for each `bash -c`/`eval`/wrapper string parsed again. */
  depth: number;
  /**
   * The wrappers this command was unwrapped from, outermost first, e.g. `['sudo', 'bash -c']`.
   * Set by unwrapping; empty for commands written directly.
   */
  via: string[];
  /** Id of the wrapper command this one was unwrapped from, if any. */
  wrappedBy?: number;
  /** True when this command runs on another machine or container (`ssh host cmd`, `docker exec`). */
  remote?: boolean;
  /**
   * Set on a command whose text the line does not show as written but that static analysis computed from
   * data it carries: decoded (`base64 -d`, `printf '\x…'`), assembled in a variable, or found in an
   * arithmetic subscript. Says how (`base64 -d | gunzip`, `$p`); rules hold such commands back as hidden.
   */
  decoded?: string;
  /** Source text of the command, for reasons and `explain`. */
  text: string;
  /**
   * The subshell environments it runs in, outermost first (`( … )`, a pipeline's parts, `$(…)`, `… &`, a
   * string run by another shell): a `cd` only moves the commands whose scope starts with its own. Absent
   * for a command in the line's own shell.
   */
  scope?: readonly number[];
  /**
   * Where the command runs when that is not the call's cwd (shell/cwd.ts): after `cd`/`pushd` earlier in its
   * scope, or under `env -C`/`sudo -D`; and the links earlier commands of the line made. Absent when neither applies.
   */
  cwd?: import('./cwd.ts').WorkDir;
}

export type AnalysisStatus = 'ok' | 'unparseable' | 'too_long' | 'too_deep' | 'too_complex' | 'refused';

/** The whole result of analysing one shell line. Never thrown; problems are in `status`/`problems`. */
export interface Analysis {
  status: AnalysisStatus;
  /** Why the analysis is not 'ok', in words a person understands. */
  message?: string;
  /** Every simple command found, in source order; unwrapped inner commands follow their wrapper. */
  commands: SimpleCommand[];
  /** Names of functions defined in the line (redefining `ls`, `git`… is an obfuscation signal). */
  functions: string[];
  /** Names set with `alias`. */
  aliases: string[];
  /** Notes about constructs that could not be resolved (a `bash -c` of a dynamic string, …). */
  problems: string[];
  /**
   * True when a compound command of the line evaluates arithmetic (`((…))`, `for ((…))`, `[[ x -eq y ]]`).
   * Arithmetic expands a variable's value as an expression, array subscripts included, so a quoted
   * `a[$(cmd)]` stored earlier runs `cmd` there. (`$((…))`, `let` and `declare -i` show in the commands.)
   */
  arithmetic?: boolean;
  /**
   * `for NAME in WORDS` / `select NAME in WORDS` loops: the variable and the words it takes in turn (absent when
   * the line has none). The body's commands are in `commands`; this keeps what they see as `$NAME`.
   */
  loops?: LoopBinding[];
}

export interface LoopBinding {
  name: string;
  words: Word[];
}
