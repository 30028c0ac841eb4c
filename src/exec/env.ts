// The environment a gated command runs with: cleared to an allowlist, so secrets the server was started
// with (API keys, tokens) never reach a command the agent wrote, and no variable can make the child load
// code of someone else's choosing.

/** Variables every command gets when the server has them: what tools need to find programs, files and a locale. */
export const BASE_ENV_ALLOWLIST: readonly string[] = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'COLORTERM', 'NO_COLOR', 'LANG', 'LANGUAGE', 'TMPDIR',
  'TZ',
];

/** Prefixes allowed as a family (`LC_ALL`, `LC_CTYPE`…). */
const ALLOWED_PREFIXES: readonly string[] = ['LC_'];

/*
 * Variables that make a program load or run code that is not the command's own: dynamic loader settings,
 * interpreter start-up hooks, shell start-up files, git's command and config injection. Never forwarded,
 * even when a policy lists them: a command the gate allowed must run as the gate read it.
 */
const LOADER_EXACT: ReadonlySet<string> = new Set([
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_EXTRA_CA_CERTS',
  'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT', 'PYTHONUSERBASE', 'PYTHONEXECUTABLE',
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'PERL5DB', 'PERL_MB_OPT', 'PERL_MM_OPT',
  'RUBYOPT', 'RUBYLIB', 'GEM_PATH', 'GEM_HOME',
  'BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'IFS', 'CDPATH', 'GLOBIGNORE', 'ZDOTDIR',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EDITOR', 'GIT_PAGER',
  'GIT_EXTERNAL_DIFF', 'GIT_PROXY_COMMAND', 'GIT_TEMPLATE_DIR', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_OBJECT_DIRECTORY', 'GIT_CEILING_DIRECTORIES',
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH',
  'DOTNET_STARTUP_HOOKS', 'CORECLR_PROFILER', 'CORECLR_PROFILER_PATH', 'CORECLR_ENABLE_PROFILING',
  'GCONV_PATH', 'HOSTALIASES', 'LOCALDOMAIN', 'RES_OPTIONS', 'NLSPATH', 'TERMINFO', 'TERMINFO_DIRS',
  'MALLOC_CHECK_', 'MALLOC_TRACE', 'OPENSSL_CONF', 'OPENSSL_ENGINES', 'SSLKEYLOGFILE',
  'LUA_INIT', 'LUA_PATH', 'LUA_CPATH', 'TCLLIBPATH', 'R_PROFILE', 'R_PROFILE_USER', 'R_ENVIRON',
  'PHPRC', 'PHP_INI_SCAN_DIR', 'NPM_CONFIG_SCRIPT_SHELL', 'NPM_CONFIG_NODE_OPTIONS', 'npm_config_script_shell',
]);

/** Families of loader and injection variables, by prefix. */
const LOADER_PREFIXES: readonly string[] = [
  'LD_', 'DYLD_', 'BASH_FUNC_', 'GIT_CONFIG', 'GIT_TRACE', 'PYTHONMALLOC', 'ASAN_', 'UBSAN_',
  'LSAN_', 'TSAN_', 'MSAN_',
];

/** True for a variable that must never reach a gated command, whatever the policy lists. */
export function isLoaderVariable(name: string): boolean {
  if (LOADER_EXACT.has(name)) return true;
  for (const p of LOADER_PREFIXES) if (name.startsWith(p)) return true;
  // Bash exports functions as `BASH_FUNC_name%%`; any `%%` name is such a function, whatever its prefix.
  return name.includes('%%');
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment for a gated command: the variables of `source` on the built-in allowlist or named by the
 * policy (`extra`, exact names), never a loader variable, never a name a shell could not have set, never a value with a
 * NUL byte.
 */
export function childEnv(source: NodeJS.ProcessEnv, extra: readonly string[] = []): Record<string, string> {
  const base = new Set(BASE_ENV_ALLOWLIST);
  const listed = new Set(extra);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (typeof value !== 'string' || value.includes('\0') || !VALID_NAME.test(name)) continue;
    if (isLoaderVariable(name)) continue;
    if (base.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p)) || listed.has(name)) out[name] = value;
  }
  return out;
}
