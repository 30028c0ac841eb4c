// What a Python program does: processes it runs, paths it removes, writes or reads, network it reaches,
// environment it reads, code it evaluates. Over python-tokens.ts, with the shared evaluator (engine.ts).

import { type CodeEffects, MAX_CODE_CHARS } from './effects.ts';
import { type CallArgs, DYN, evalEffect, envVar, evaluate, type Evaluator, expandUser, type Lang, matching, NONE, pathJoin, strOf, type Val } from './engine.ts';
import { tokenizePython } from './python-tokens.ts';
import type { Tok } from './tokens.ts';

type Handler = (a: CallArgs, ev: Evaluator, q: string) => Val | undefined;

/** argv from a value: a list of strings, or null when any part is unknown. */
export function argvOf(v: Val | undefined): string[] | null {
  if (v === undefined) return null;
  if (v.t === 'list') {
    const out: string[] = [];
    for (const x of v.items) {
      if (x.t === 'str') out.push(x.v);
      else if (x.t === 'num') out.push(String(x.v));
      else return null;
    }
    return out;
  }
  return null;
}

const truthy = (v: Val | undefined): boolean => v !== undefined && ((v.t === 'bool' && v.v) || (v.t === 'num' && v.v !== 0) || v.t === 'dyn' || v.t === 'str');

/** Record a process run: a list is argv, a string is a shell line when `shell`, else a program name. */
export function runEffect(ev: Evaluator, v: Val | undefined, shell: boolean, via: string): void {
  if (v !== undefined && v.t === 'str') {
    if (shell) ev.effect({ kind: 'run', argv: null, line: v.v, via });
    else ev.effect({ kind: 'run', argv: [v.v], line: null, via });
    return;
  }
  const argv = argvOf(v);
  if (argv !== null && argv.length > 0) {
    if (shell) ev.effect({ kind: 'run', argv: null, line: argv[0]!, via });
    else ev.effect({ kind: 'run', argv, line: null, via });
    return;
  }
  ev.effect({ kind: 'run', argv: null, line: null, via });
  ev.unknown(`runs a command computed at run time (${via})`);
}

export function pathEffect(ev: Evaluator, kind: 'remove' | 'write' | 'read', v: Val | undefined, via: string, opts: { recursive?: boolean; append?: boolean; dir?: boolean } = {}): void {
  const path = strOf(v) ?? (v?.t === 'dyn' && v.prefix?.startsWith('/tmp/') ? `${v.prefix}x` : null);
  if (kind === 'remove') ev.effect({ kind, path, recursive: opts.recursive ?? false, dir: opts.dir, via });
  else if (kind === 'write') ev.effect({ kind, path, append: opts.append ?? false, via });
  else ev.effect({ kind, path, via });
  if (path === null && kind !== 'read') ev.unknown(`${kind === 'remove' ? 'removes' : 'writes'} a path computed at run time (${via})`);
}

export function netEffect(ev: Evaluator, url: Val | undefined, send: boolean, via: string): void {
  const u = strOf(url);
  if (u !== null) {
    ev.effect({ kind: 'network', url: u, send, via });
    return;
  }
  const prefix = url?.t === 'dyn' ? url.prefix : undefined;
  const origin = prefix !== undefined ? /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\//i.exec(prefix) : null;
  if (origin) {
    ev.effect({ kind: 'network', url: `${origin[0]}x`, send, via });
    return;
  }
  ev.effect({ kind: 'network', url: null, send, via });
  ev.unknown(`talks to a network address computed at run time (${via})`);
}

/** open(p, mode): a read, or a write/append when the mode says so. */
function openEffect(ev: Evaluator, p: Val | undefined, mode: Val | undefined, via: string): Val {
  const m = mode === undefined ? 'r' : strOf(mode);
  if (m === null) pathEffect(ev, 'write', p, via);
  else if (/[wax+]/.test(m)) pathEffect(ev, 'write', p, via, { append: m.includes('a') });
  else pathEffect(ev, 'read', p, via);
  return DYN;
}


const HTTP_CLIENTS = new Set(['requests', 'httpx', 'aiohttp', 'urllib3', 'requests.Session()', 'httpx.Client()', 'httpx.AsyncClient()', 'aiohttp.ClientSession()', 'urllib3.PoolManager()']);
const FACTORIES: Record<string, string> = {
  'requests.Session': 'requests.Session()', 'requests.session': 'requests.Session()', 'httpx.Client': 'httpx.Client()', 'httpx.AsyncClient': 'httpx.AsyncClient()',
  'aiohttp.ClientSession': 'aiohttp.ClientSession()', 'urllib3.PoolManager': 'urllib3.PoolManager()', 'socket.socket': 'socket.socket()',
};

const H: Record<string, Handler> = {
  // processes
  'os.system': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'os.popen': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'subprocess.getoutput': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'subprocess.getstatusoutput': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'commands.getoutput': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'asyncio.create_subprocess_shell': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'asyncio.create_subprocess_exec': (a, ev, q) => (runEffect(ev, a.kw.has('$spread') ? DYN : { t: 'list', items: a.pos }, false, q), DYN),
  'pty.spawn': (a, ev, q) => (runEffect(ev, a.pos[0], false, q), DYN),
  'os.posix_spawn': (a, ev, q) => (runEffect(ev, a.pos[1], false, q), DYN),
  'os.posix_spawnp': (a, ev, q) => (runEffect(ev, a.pos[1], false, q), DYN),
  // files
  'builtins.open': (a, ev, q) => openEffect(ev, a.pos[0] ?? a.kw.get('file'), a.pos[1] ?? a.kw.get('mode'), q),
  'io.open': (a, ev, q) => openEffect(ev, a.pos[0] ?? a.kw.get('file'), a.pos[1] ?? a.kw.get('mode'), q),
  'codecs.open': (a, ev, q) => openEffect(ev, a.pos[0], a.pos[1] ?? a.kw.get('mode'), q),
  'os.open': (a, ev, q) => (pathEffect(ev, 'write', a.pos[0], q), DYN),
  'shutil.rmtree': (a, ev, q) => (pathEffect(ev, 'remove', a.pos[0] ?? a.kw.get('path'), q, { recursive: true }), NONE),
  'os.remove': (a, ev, q) => (pathEffect(ev, 'remove', a.pos[0], q), NONE),
  'os.unlink': (a, ev, q) => (pathEffect(ev, 'remove', a.pos[0], q), NONE),
  'os.rmdir': (a, ev, q) => (pathEffect(ev, 'remove', a.pos[0], q, { dir: true }), NONE),
  'os.removedirs': (a, ev, q) => (pathEffect(ev, 'remove', a.pos[0], q, { dir: true }), NONE),
  'os.truncate': (a, ev, q) => (pathEffect(ev, 'write', a.pos[0], q), NONE),
  'shutil.move': (a, ev, q) => twoPath(ev, 'move', a, q),
  'os.rename': (a, ev, q) => twoPath(ev, 'move', a, q),
  'os.renames': (a, ev, q) => twoPath(ev, 'move', a, q),
  'os.replace': (a, ev, q) => twoPath(ev, 'move', a, q),
  'shutil.copy': (a, ev, q) => twoPath(ev, 'copy', a, q),
  'shutil.copy2': (a, ev, q) => twoPath(ev, 'copy', a, q),
  'shutil.copyfile': (a, ev, q) => twoPath(ev, 'copy', a, q),
  'shutil.copytree': (a, ev, q) => twoPath(ev, 'copy', a, q),
  'os.symlink': (a, ev, q) => (ev.effect({ kind: 'link', target: strOf(a.pos[0]), path: strOf(a.pos[1]), via: q }), NONE),
  'os.link': (a, ev, q) => (ev.effect({ kind: 'link', target: strOf(a.pos[0]), path: strOf(a.pos[1]), via: q }), NONE),
  'os.chmod': (a, ev, q) => (ev.effect({ kind: 'chmod', path: strOf(a.pos[0]), mode: a.pos[1]?.t === 'num' ? a.pos[1].v.toString(8) : null, via: q }), NONE),
  'os.chown': (a, ev, q) => (ev.effect({ kind: 'chown', path: strOf(a.pos[0]), via: q }), NONE),
  'os.lchown': (a, ev, q) => (ev.effect({ kind: 'chown', path: strOf(a.pos[0]), via: q }), NONE),
  'shutil.chown': (a, ev, q) => (ev.effect({ kind: 'chown', path: strOf(a.pos[0]), via: q }), NONE),
  'os.kill': (a, ev, q) => killEffect(ev, a, q),
  'os.killpg': (a, ev, q) => killEffect(ev, a, q),
  // values
  'os.path.expanduser': (a) => expandUser(a.pos[0] ?? DYN),
  'os.path.join': (a) => (a.kw.has('$spread') ? { t: 'dyn', path: true } : pathJoin(a.pos)),
  'posixpath.join': (a) => pathJoin(a.pos),
  'os.path.abspath': (a) => a.pos[0] ?? DYN,
  'os.path.realpath': (a) => a.pos[0] ?? DYN,
  'os.path.normpath': (a) => a.pos[0] ?? DYN,
  'os.path.expandvars': (a) => (strOf(a.pos[0])?.includes('$') ? { t: 'dyn', path: true } : a.pos[0] ?? DYN),
  'os.getcwd': () => ({ t: 'str', v: '.', path: true }),
  'os.getenv': (a, ev) => (strOf(a.pos[0]) !== null ? envVar(ev, strOf(a.pos[0])!) : (ev.effect({ kind: 'env', name: null, via: 'os.getenv' }), DYN)),
  'env.get': (a, ev) => (strOf(a.pos[0]) !== null ? envVar(ev, strOf(a.pos[0])!) : (ev.effect({ kind: 'env', name: null, via: 'os.environ.get' }), DYN)),
  'env.copy': () => ({ t: 'env' }),
  'env.items': () => ({ t: 'env' }),
  'env.keys': () => ({ t: 'env' }),
  'env.values': () => ({ t: 'env' }),
  'env.setdefault': () => DYN,
  'env.update': () => NONE,
  'env.pop': () => DYN,
  'builtins.dict': (a) => (a.pos[0]?.t === 'env' ? { t: 'env' } : DYN),
  'builtins.str': (a) => a.pos[0] !== undefined && (a.pos[0].t === 'str' || a.pos[0].t === 'env') ? a.pos[0] : a.pos[0]?.t === 'num' ? { t: 'str', v: String(a.pos[0].v) } : DYN,
  'pathlib.Path': (a) => pathOf(a),
  'pathlib.PosixPath': (a) => pathOf(a),
  'pathlib.PurePath': (a) => pathOf(a),
  'pathlib.Path.home': () => ({ t: 'str', v: '~', path: true }),
  'pathlib.Path.cwd': () => ({ t: 'str', v: '.', path: true }),
  'tempfile.mkdtemp': () => ({ t: 'str', v: '/tmp/tmpasimov', path: true }),
  // The name of a file in the temp directory that does not exist yet (insecure for the race, not for where it is).
  'tempfile.mktemp': () => ({ t: 'str', v: '/tmp/tmpasimov', path: true }),
  'tempfile.gettempdir': () => ({ t: 'str', v: '/tmp', path: true }),
  'tempfile.mkstemp': () => ({ t: 'list', items: [DYN, { t: 'str', v: '/tmp/tmpasimov', path: true }] }),
  // code
  'builtins.exec': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'builtins.eval': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'builtins.compile': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'builtins.__import__': (a, ev, q) => importOf(ev, a.pos[0], q),
  'importlib.import_module': (a, ev, q) => importOf(ev, a.pos[0], q),
  'importlib.__import__': (a, ev, q) => importOf(ev, a.pos[0], q),
  'builtins.getattr': (a, ev) => {
    const o = a.pos[0];
    const n = strOf(a.pos[1]);
    if (o?.t === 'ref' && n !== null) return py.member(o.q, n, ev);
    if (o?.t === 'ref' && n === null) {
      ev.effect({ kind: 'eval', via: `getattr(${o.q}, …)` });
      ev.unknown(`looks up a member of ${o.q} by a name computed at run time`);
    }
    if (o !== undefined && o.t !== 'ref') ev.use(o);
    return DYN;
  },
  'pickle.loads': (a, ev, q) => literalPayload(ev, a, q),
  'marshal.loads': (a, ev, q) => literalPayload(ev, a, q),
  'dill.loads': (a, ev, q) => literalPayload(ev, a, q),
  'ctypes.CDLL': (_a, ev, q) => (ev.effect({ kind: 'eval', via: q }), ev.unknown(`loads a native library (${q})`), DYN),
  'ctypes.cdll.LoadLibrary': (_a, ev, q) => (ev.effect({ kind: 'eval', via: q }), ev.unknown(`loads a native library (${q})`), DYN),
  // network
  'urllib.request.urlopen': (a, ev, q) => {
    const u = a.pos[0] ?? a.kw.get('url');
    const data = a.pos[1] ?? a.kw.get('data');
    if (u?.t === 'obj') return (netEffect(ev, u.props.get('url'), u.props.has('data') || data !== undefined, q), DYN);
    return (netEffect(ev, u, data !== undefined && data.t !== 'none', q), DYN);
  },
  'urllib.request.Request': (a) => {
    const props = new Map<string, Val>([['url', a.pos[0] ?? a.kw.get('url') ?? DYN]]);
    const data = a.pos[1] ?? a.kw.get('data');
    if (data !== undefined && data.t !== 'none') props.set('data', data);
    return { t: 'obj', props };
  },
  'urllib.request.urlretrieve': (a, ev, q) => (netEffect(ev, a.pos[0], false, q), a.pos[1] ? pathEffect(ev, 'write', a.pos[1], q) : undefined, DYN),
  'http.client.HTTPConnection': (a, ev, q) => (netEffect(ev, hostUrl('http', a.pos[0], a.pos[1]), true, q), DYN),
  'http.client.HTTPSConnection': (a, ev, q) => (netEffect(ev, hostUrl('https', a.pos[0], a.pos[1]), true, q), DYN),
  'ftplib.FTP': (a, ev, q) => (netEffect(ev, hostUrl('ftp', a.pos[0]), true, q), DYN),
  'ftplib.FTP_TLS': (a, ev, q) => (netEffect(ev, hostUrl('ftp', a.pos[0]), true, q), DYN),
  'smtplib.SMTP': (a, ev, q) => (netEffect(ev, hostUrl('smtp', a.pos[0]), true, q), DYN),
  'smtplib.SMTP_SSL': (a, ev, q) => (netEffect(ev, hostUrl('smtp', a.pos[0]), true, q), DYN),
  'telnetlib.Telnet': (a, ev, q) => (netEffect(ev, hostUrl('telnet', a.pos[0], a.pos[1]), true, q), DYN),
  'socket.create_connection': (a, ev, q) => (socketEffect(ev, a.pos[0], q), DYN),
  'socket.socket().connect': (a, ev, q) => (socketEffect(ev, a.pos[0], q), DYN),
  'socket.socket().connect_ex': (a, ev, q) => (socketEffect(ev, a.pos[0], q), DYN),
  'socket.socket().sendto': (a, ev, q) => (socketEffect(ev, a.pos[1], q), DYN),
  'webbrowser.open': (a, ev, q) => (netEffect(ev, a.pos[0], false, q), DYN),
};

function twoPath(ev: Evaluator, kind: 'copy' | 'move', a: CallArgs, via: string): Val {
  const from = strOf(a.pos[0]);
  const to = strOf(a.pos[1]);
  ev.effect({ kind, from, to, via });
  if (from === null || to === null) ev.unknown(`${kind === 'move' ? 'moves' : 'copies'} a path computed at run time (${via})`);
  return DYN;
}

function killEffect(ev: Evaluator, a: CallArgs, via: string): Val {
  const pid = a.pos[0]?.t === 'num' ? String(a.pos[0].v) : null;
  const sig = a.pos[1]?.t === 'num' ? String(a.pos[1].v) : null;
  ev.effect({ kind: 'kill', pid, signal: sig, via });
  return NONE;
}

function literalPayload(ev: Evaluator, a: CallArgs, via: string): Val {
  const v = a.pos[0];
  if (v?.t === 'str') {
    ev.effect({ kind: 'eval', via });
    ev.unknown(`deserializes a literal payload that can run code (${via})`);
  }
  return DYN;
}

function importOf(ev: Evaluator, name: Val | undefined, via: string): Val {
  const n = strOf(name);
  if (n !== null) {
    ev.imported(n);
    return { t: 'ref', q: n };
  }
  ev.effect({ kind: 'eval', via });
  ev.unknown(`imports a module named at run time (${via})`);
  return DYN;
}

function hostUrl(scheme: string, host: Val | undefined, port?: Val): Val {
  const h = strOf(host);
  if (h === null) return DYN;
  return { t: 'str', v: `${scheme}://${h}${port?.t === 'num' ? `:${port.v}` : ''}/` };
}

function socketEffect(ev: Evaluator, addr: Val | undefined, via: string): void {
  if (addr?.t === 'list' && addr.items[0]?.t === 'str') {
    const port = addr.items[1]?.t === 'num' ? String(addr.items[1].v) : '0';
    ev.effect({ kind: 'network', url: `tcp://${addr.items[0].v}:${port}`, send: true, via });
    return;
  }
  ev.effect({ kind: 'network', url: null, send: true, via });
  ev.unknown(`opens a socket to an address computed at run time (${via})`);
}

function pathOf(a: CallArgs): Val {
  if (a.pos.length === 0) return { t: 'str', v: '.', path: true };
  return pathJoin(a.pos);
}

/** os.exec… and os.spawn…: argv after the program (list forms `v`, spread forms `l`). */
function execFamily(q: string): Handler | undefined {
  const m = /^os\.(exec|spawn)(l|v)(p?)(e?)$/.exec(q);
  if (!m) return undefined;
  const off = m[1] === 'spawn' ? 1 : 0;
  return (a, ev) => {
    if (m[2] === 'v') runEffect(ev, a.pos[off + 1], false, q);
    else {
      const rest = a.pos.slice(off + 1, m[4] ? -1 : undefined);
      runEffect(ev, a.kw.has('$spread') ? DYN : { t: 'list', items: rest }, false, q);
    }
    return DYN;
  };
}

const SUBPROCESS = new Set(['run', 'call', 'check_call', 'check_output', 'Popen']);

function subprocessCall(q: string): Handler | undefined {
  const m = /^subprocess\.(\w+)$/.exec(q);
  if (!m || !SUBPROCESS.has(m[1]!)) return undefined;
  return (a, ev) => {
    runEffect(ev, a.pos[0] ?? a.kw.get('args'), truthy(a.kw.get('shell')), q);
    for (const [k, v] of a.kw) if (k !== 'env' && k !== 'args') ev.use(v);
    return DYN;
  };
}

function httpCall(q: string): Handler | undefined {
  const dot = q.lastIndexOf('.');
  const base = q.slice(0, dot);
  const meth = q.slice(dot + 1);
  if (!HTTP_CLIENTS.has(base)) return undefined;
  if (!['get', 'head', 'options', 'post', 'put', 'patch', 'delete', 'request', 'stream', 'urlopen'].includes(meth)) return undefined;
  return (a, ev) => {
    const generic = meth === 'request' || meth === 'stream' || meth === 'urlopen';
    const url = generic ? a.pos[1] ?? a.kw.get('url') : a.pos[0] ?? a.kw.get('url');
    const method = generic ? strOf(a.pos[0])?.toLowerCase() ?? 'post' : meth;
    const send = !['get', 'head', 'options'].includes(method) || ['data', 'json', 'files', 'content'].some((k) => a.kw.has(k));
    netEffect(ev, url, send, q);
    for (const [k, v] of a.kw) if (k !== 'url') ev.use(v);
    return DYN;
  };
}

// ---------------------------------------------------------------------------------------------------------
// The language

const KEYWORDS = new Set(['import', 'from', 'as', 'def', 'class', 'if', 'elif', 'else', 'for', 'while', 'in', 'is', 'and', 'or', 'with', 'try', 'except', 'finally', 'pass', 'break', 'continue', 'global', 'nonlocal', 'del', 'assert', 'raise', 'lambda', 'async', 'match', 'case']);
const BUILTINS = new Set(['open', 'exec', 'eval', 'compile', '__import__', 'getattr', 'dict', 'str', 'print', 'setattr', 'globals', 'locals', 'vars', 'breakpoint', 'input']);
const REFLECT = new Set(['__subclasses__', '__globals__', '__builtins__', '__dict__', '__getattribute__', '__code__', '__closure__', '__reduce__', '__reduce_ex__', '__loader__', '__mro__', '__bases__', '__base__', '__class__', '__func__', '__self__', 'f_globals', 'f_locals', 'f_back', 'gi_frame', 'tb_frame']);

/** Module aliases Python resolves to the same functions. */
function normalize(q: string): string {
  if (q.startsWith('posix.') || q.startsWith('nt.')) return `os.${q.slice(q.indexOf('.') + 1)}`;
  if (q.startsWith('builtins.builtins.')) return q.slice(9);
  if (q === 'builtins.os' || q === 'builtins.sys') return q.slice(9);
  if (q.startsWith('os.path.') || q === 'os.path') return q;
  if (q.startsWith('posixpath.')) return `os.path.${q.slice(10)}`;
  if (q.startsWith('urllib2.')) return `urllib.request.${q.slice(8)}`;
  if (q.startsWith('sys.modules.')) return q.slice(12);
  return q;
}

/** Standard modules whose calls reach the system; a call into them that no handler models is an unknown effect. */
const PY_ACTIVE = /^(?:os|posix|nt|subprocess|socket|socketserver|shutil|urllib|urllib2|http|ftplib|smtplib|poplib|imaplib|telnetlib|ctypes|multiprocessing|signal|pty|pexpect|paramiko|fabric|asyncio\.subprocess|xmlrpc|webbrowser|requests|httpx|aiohttp|urllib3|tempfile|glob|zipfile|tarfile|sqlite3|psycopg2|pymysql|boto3|docker|kubernetes|threading|concurrent|runpy|code|importlib|sys)\./;
/** Calls into those modules that only compute, inspect or read (what they read is not a path written). */
const PY_HARMLESS = /^(?:os\.path\.\w+|os\.(?:listdir|scandir|walk|stat|lstat|getcwd|getcwdb|getpid|getppid|getuid|geteuid|getgid|getegid|getlogin|cpu_count|uname|get_terminal_size|fspath|fsencode|fsdecode|urandom|access|isatty|strerror|get_exec_path|getloadavg|times|sched_getaffinity|umask|devnull|sep|linesep)|shutil\.(?:which|disk_usage|get_terminal_size|get_archive_formats)|socket\.(?:gethostname|getfqdn|gethostbyname|gethostbyname_ex|getaddrinfo|inet_aton|inet_ntoa|inet_pton|inet_ntop|htons|ntohs|htonl|ntohl)|urllib\.parse\.\w+|http\.HTTPStatus|http\.cookies\.\w+|signal\.(?:signal|getsignal|alarm|Signals)|tempfile\.(?:gettempdir|gettempprefix|TemporaryDirectory|NamedTemporaryFile|TemporaryFile|SpooledTemporaryFile|mkstemp|mkdtemp|mktemp)|glob\.(?:glob|iglob|escape)|multiprocessing\.(?:cpu_count|Pool|Queue|Process|current_process)|threading\.\w+|concurrent\.futures\.\w+|importlib\.(?:metadata\.\w+|resources\.\w+|util\.find_spec|reload|invalidate_caches)|sys\.(?:exit|get\w+|set_int_max_str_digits|setrecursionlimit|exc_info|getdefaultencoding|getfilesystemencoding|intern|path\.\w+|stdout\.\w+|stderr\.\w+|stdin\.\w+|version_info|platform)|zipfile\.(?:ZipFile|is_zipfile)|tarfile\.(?:open|is_tarfile)|sqlite3\.connect|asyncio\.subprocess\.PIPE)$/;

/** Statements whose header ends in `:` and may carry their body on the same line. */
const COMPOUND = new Set(['if', 'elif', 'else', 'while', 'for', 'with', 'try', 'except', 'finally']);

/** The `:` that ends a compound statement's header: the first one outside brackets (a slice or dict is inside), or -1. */
function headerColon(toks: Tok[], a: number, b: number): number {
  let depth = 0;
  for (let i = a + 1; i < b; i++) {
    const v = toks[i]!.v;
    if (toks[i]!.k === 'str') continue;
    if (v === '(' || v === '[' || v === '{') depth++;
    else if (v === ')' || v === ']' || v === '}') depth--;
    else if (v === ':' && depth === 0 && toks[i]!.k === 'op') return i;
    else if (v === 'lambda' && depth === 0) return -1;
  }
  return -1;
}

const py: Lang & { stars: string[] } = {
  name: 'python',
  unmodeled: (q) => PY_ACTIVE.test(q) && !PY_HARMLESS.test(q),
  reflect: REFLECT,
  stars: [],
  keywords: KEYWORDS,
  global(name) {
    if (BUILTINS.has(name)) return { t: 'ref', q: `builtins.${name}` };
    if (name === '__builtins__') return { t: 'ref', q: 'builtins' };
    if (name === 'True') return { t: 'bool', v: true };
    if (name === 'False') return { t: 'bool', v: false };
    if (name === 'None') return NONE;
    return undefined;
  },
  member(q, name, ev) {
    if (REFLECT.has(name)) {
      ev.effect({ kind: 'eval', via: `${q}.${name}` });
      ev.unknown(`reaches objects through reflection (${name})`);
      return DYN;
    }
    if (q === 'os' && (name === 'environ' || name === 'environb')) return { t: 'env' };
    if (q === 'builtins' && (name === 'os' || name === 'sys')) return { t: 'ref', q: name };
    return { t: 'ref', q: normalize(`${q}.${name}`) };
  },
  sink(q) {
    if (/^(os\.(system|popen|exec\w*|spawn\w*|posix_spawnp?)|subprocess\.(run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|pty\.spawn|asyncio\.create_subprocess_\w+|commands\.getoutput)$/.test(q)) return 'run';
    if (/^(shutil\.rmtree|os\.(remove|unlink|rmdir|removedirs))$/.test(q)) return 'remove';
    if (/^(builtins\.open|io\.open|codecs\.open|shutil\.(move|copy\w*)|os\.(rename|replace|renames|truncate|symlink|chmod|chown|kill|killpg))$/.test(q)) return 'write';
    if (/^(builtins\.(exec|eval|compile|__import__|getattr)|importlib\.import_module|pickle\.loads|marshal\.loads)$/.test(q)) return 'eval';
    if (/^(urllib\.request\.urlopen|requests\.\w+|httpx\.\w+|socket\.create_connection|http\.client\.\w+)$/.test(q)) return 'network';
    return null;
  },
  call(q0, a, ev, _isNew) {
    const q = normalize(q0);
    const h = H[q] ?? subprocessCall(q) ?? execFamily(q) ?? httpCall(q);
    if (h) return h(a, ev, q);
    if (FACTORIES[q]) return { t: 'ref', q: FACTORIES[q] };
    if (q.startsWith('socket.socket().') && /\.(send|sendall)$/.test(q)) {
      for (const v of a.pos) ev.use(v);
      return DYN;
    }
    return undefined;
  },
  method(recv, name, a, ev) {
    if (name === '$property' || a.kw.has('$property')) {
      if (REFLECT.has(name)) {
        ev.effect({ kind: 'eval', via: `.${name}` });
        ev.unknown(`reaches objects through reflection (${name})`);
        return DYN;
      }
      if (recv.t === 'str' && recv.path && name === 'parent') return { t: 'str', v: recv.v.includes('/') ? recv.v.replace(/\/[^/]*$/, '') || '/' : '.', path: true };
      return undefined;
    }
    if (recv.t === 'env') {
      const h = H[`env.${name}`];
      return h ? h(a, ev, `os.environ.${name}`) : undefined;
    }
    const isPath = (recv.t === 'str' || recv.t === 'dyn') && recv.path === true;
    const via = `Path.${name}`;
    if (isPath) {
      switch (name) {
        case 'expanduser': case 'resolve': case 'absolute': case 'as_posix': return recv;
        case 'joinpath': return pathJoin([recv, ...a.pos]);
        case 'read_text': case 'read_bytes': pathEffect(ev, 'read', recv, via); return DYN;
        case 'open': return openEffect(ev, recv, a.pos[0] ?? a.kw.get('mode'), via);
        case 'write_text': case 'write_bytes': case 'touch': pathEffect(ev, 'write', recv, via); for (const v of a.pos) ev.use(v); return NONE;
        case 'unlink': pathEffect(ev, 'remove', recv, via); return NONE;
        case 'rmdir': pathEffect(ev, 'remove', recv, via, { dir: true }); return NONE;
        case 'rename': case 'replace': return twoPath(ev, 'move', { pos: [recv, a.pos[0] ?? DYN], kw: new Map() }, via);
        case 'symlink_to': case 'hardlink_to': ev.effect({ kind: 'link', target: strOf(a.pos[0]), path: strOf(recv), via }); return NONE;
        case 'chmod': ev.effect({ kind: 'chmod', path: strOf(recv), mode: a.pos[0]?.t === 'num' ? a.pos[0].v.toString(8) : null, via }); return NONE;
        case 'with_name': case 'with_suffix': case 'with_stem': return { t: 'dyn', path: true };
        case 'iterdir': case 'glob': case 'rglob': case 'walk': return recv.t === 'str' ? { t: 'list', items: [{ t: 'dyn', prefix: recv.v.endsWith('/') ? recv.v : `${recv.v}/`, path: true }] } : DYN;
        default: return undefined;
      }
    }
    if (recv.t === 'str') {
      switch (name) {
        case 'format': return recv.v.includes('{') ? { t: 'dyn', prefix: recv.v.slice(0, recv.v.indexOf('{')) } : recv;
        case 'join': {
          const parts = argvOf(a.pos[0]);
          return parts !== null ? { t: 'str', v: parts.join(recv.v) } : DYN;
        }
        case 'strip': case 'rstrip': case 'lstrip': case 'encode': case 'decode': return a.pos.length === 0 ? { t: 'str', v: name === 'strip' ? recv.v.trim() : recv.v } : DYN;
        case 'replace': {
          const x = strOf(a.pos[0]);
          const y = strOf(a.pos[1]);
          return x !== null && y !== null ? { t: 'str', v: recv.v.split(x).join(y) } : DYN;
        }
        case 'split': return a.pos.length === 0 ? { t: 'list', items: recv.v.split(/\s+/).filter((s) => s !== '').map((s) => ({ t: 'str', v: s })) } : DYN;
        default: return undefined;
      }
    }
    return undefined;
  },
  statement(toks, a, b, ev) {
    const t = toks[a]!;
    if (t.k !== 'name') return null;
    if (t.v === 'import') {
      let i = a + 1;
      while (i < b) {
        let mod = '';
        while (i < b && (toks[i]!.k === 'name' || toks[i]!.v === '.') && toks[i]!.v !== 'as') mod += toks[i++]!.v;
        ev.imported(mod);
        if (toks[i]?.v === 'as' && toks[i + 1]?.k === 'name') {
          ev.bind(toks[i + 1]!.v, { t: 'ref', q: normalize(mod) });
          i += 2;
        } else ev.bind(mod.split('.')[0]!, { t: 'ref', q: mod.split('.')[0]! });
        if (toks[i]?.v === ',') i++;
        else break;
      }
      return b;
    }
    if (t.v === 'from') {
      let i = a + 1;
      let mod = '';
      while (i < b && toks[i]!.v !== 'import') mod += toks[i++]!.v;
      ev.imported(mod);
      i++;
      for (; i < b; i++) {
        const n = toks[i]!;
        if (n.v === '*') {
          py.stars.push(mod);
          continue;
        }
        if (n.k !== 'name') continue;
        let local = n.v;
        if (toks[i + 1]?.v === 'as' && toks[i + 2]?.k === 'name') {
          local = toks[i + 2]!.v;
          i += 2;
        }
        ev.bind(local, py.member(normalize(mod), n.v, ev));
      }
      return b;
    }
    if (COMPOUND.has(t.v)) {
      // `if cond: import urllib.request as r` — a body on the header's own line is a statement of its own
      // (an import there binds a name); the header is evaluated first, as written.
      const colon = headerColon(toks, a, b);
      if (colon > a && colon + 1 < b) {
        if (colon > a + 1 || t.v === 'else' || t.v === 'try' || t.v === 'finally') ev.stmt(toks, a, colon);
        ev.stmt(toks, colon + 1, b);
        return b;
      }
    }
    if (t.v === 'def' || t.v === 'class') {
      // The body follows on later lines; the default values are code.
      const open = toks[a + 2]?.v === '(' ? a + 2 : -1;
      if (open > 0) {
        const close = matching(toks, open, b);
        ev.args(toks, open + 1, close);
        return close + 1;
      }
      return b;
    }
    if (t.v === 'for' || t.v === 'async') {
      const inAt = toks.findIndex((x, k) => k > a && k < b && x.k === 'name' && x.v === 'in');
      return inAt > 0 ? inAt + 1 : null;
    }
    if (t.v === 'with') {
      // `with open(p, 'w') as f:`: evaluate the managers, skip the `as` names.
      let i = a + 1;
      while (i < b) {
        const r = ev.expr(toks, i, b);
        if (r.i > i) { ev.use(r.v); i = r.i; } else i++;
        if (toks[i]?.v === 'as') i += 2;
      }
      return b;
    }
    return null;
  },
  bindings(toks, a, b, out) {
    for (let i = a; i < b; i++) {
      const t = toks[i]!;
      if (t.k !== 'name') continue;
      if (t.v === 'for') {
        for (let k = i + 1; k < b && !(toks[k]!.k === 'name' && toks[k]!.v === 'in'); k++) if (toks[k]!.k === 'name') out(toks[k]!.v);
      } else if (t.v === 'lambda') {
        for (let k = i + 1; k < b && toks[k]!.v !== ':'; k++) if (toks[k]!.k === 'name' && toks[k - 1]!.v !== '=') out(toks[k]!.v);
      } else if (t.v === 'as' && toks[i + 1]?.k === 'name') {
        if (!isImportAs(toks, i)) out(toks[i + 1]!.v);
      } else if ((t.v === 'def' || t.v === 'class') && toks[i + 1]?.k === 'name') {
        out(toks[i + 1]!.v);
        if (toks[i + 2]?.v === '(') {
          const close = matching(toks, i + 2, b);
          for (let k = i + 3; k < close; k++) if (toks[k]!.k === 'name' && (toks[k - 1]!.v === '(' || toks[k - 1]!.v === ',' || toks[k - 1]!.v === '*' || toks[k - 1]!.v === '**')) out(toks[k]!.v);
        }
      } else if (t.v === 'global' || t.v === 'nonlocal') {
        for (let k = i + 1; k < b && toks[k]!.k !== 'nl'; k++) if (toks[k]!.k === 'name') out(toks[k]!.v);
      } else if (toks[i + 1]?.v === ':=') out(t.v);
    }
  },
  tokenize: tokenizePython,
};

function isImportAs(toks: Tok[], i: number): boolean {
  for (let k = i - 1; k >= 0 && toks[k]!.k !== 'nl'; k--) if (toks[k]!.k === 'name' && (toks[k]!.v === 'import' || toks[k]!.v === 'from')) return true;
  return false;
}

/** What a Python program does. Never throws; a tokenizer error is reported in `error` (what came before is analysed). */
export function analyzePython(code: string): CodeEffects {
  if (code.length > MAX_CODE_CHARS) return { imports: [], effects: [], unknowns: ['the code is too large to read'], error: 'too large' };
  const { toks, error } = tokenizePython(code);
  const lang = { ...py, stars: [] as string[] };
  lang.global = (name: string) => {
    const g = py.global(name);
    if (g) return g;
    for (const m of lang.stars) if (lang.sink(`${m}.${name}`) !== null || H[`${m}.${name}`]) return { t: 'ref', q: normalize(`${m}.${name}`) };
    return undefined;
  };
  lang.statement = (toks2, a, b, ev) => {
    const saved = py.stars;
    py.stars = lang.stars;
    try {
      return py.statement(toks2, a, b, ev);
    } finally {
      py.stars = saved;
    }
  };
  const fx = evaluate(lang, toks);
  if (error) fx.error = error;
  return fx;
}

