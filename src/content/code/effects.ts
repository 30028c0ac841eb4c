// What inline code does, as the code analyzers (python.ts, javascript.ts) report it. Pure data: the policy
// layer maps each effect to the shell line that does the same thing and classifies it with the shell rules.

export type Effect =
  /** Runs a program: `argv` for a list form, `line` for a shell string; both null when it is computed at run time. */
  | { kind: 'run'; argv: string[] | null; line: string | null; via: string }
  | { kind: 'remove'; path: string | null; recursive: boolean; dir?: boolean; via: string }
  | { kind: 'write'; path: string | null; append: boolean; via: string }
  | { kind: 'read'; path: string | null; via: string }
  | { kind: 'copy' | 'move'; from: string | null; to: string | null; via: string }
  | { kind: 'link'; target: string | null; path: string | null; via: string }
  | { kind: 'chmod'; path: string | null; mode: string | null; via: string }
  | { kind: 'chown'; path: string | null; via: string }
  | { kind: 'kill'; pid: string | null; signal: string | null; via: string }
  /** Talks to the network: `url` (or `host:port` for a raw socket) when literal; `send` when it uploads data. */
  | { kind: 'network'; url: string | null; send: boolean; via: string }
  /** Reads the environment: one variable by `name`, or all of it (null). */
  | { kind: 'env'; name: string | null; via: string }
  /** Runs code built at run time (eval/exec/new Function/import of a computed name…). */
  | { kind: 'eval'; via: string };

export interface CodeEffects {
  /** Modules imported or required (as written, `node:` prefix removed). */
  imports: string[];
  effects: Effect[];
  /** What could not be known, in words for a reason ("removes a path computed at run time (shutil.rmtree)"). */
  unknowns: string[];
  /** Set when the code could not be read to its end (a tokenizer error): what follows was not analysed. */
  error?: string;
}

/** The longest code the analyzers read; past it the policy asks ("too large to read"). */
export const MAX_CODE_CHARS = 256 * 1024;
