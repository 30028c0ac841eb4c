// What a JavaScript/TypeScript program does (node -e, deno eval, bun -e, tsx -e): processes it spawns,
// paths it removes, writes or reads, network it reaches, environment it reads, code it evaluates. Over
// js-tokens.ts, with the shared evaluator (engine.ts). `require`, static and dynamic `import`, destructuring
// and renaming are followed; `node:` prefixes, `fs/promises`, `fs.promises` and the `…Sync` twins are one.

import { type CodeEffects, MAX_CODE_CHARS } from './effects.ts';
import { type CallArgs, DYN, evalEffect, envVar, evaluate, type Evaluator, type Lang, matching, NONE, pathJoin, strOf, type Val } from './engine.ts';
import { tokenizeJs } from './js-tokens.ts';
import { argvOf, netEffect, pathEffect, runEffect } from './python.ts';

type Handler = (a: CallArgs, ev: Evaluator, q: string) => Val | undefined;

const opt = (a: CallArgs, i: number, key: string): Val | undefined => {
  const o = a.pos[i];
  return o?.t === 'obj' ? o.props.get(key) : undefined;
};
const truthy = (v: Val | undefined): boolean => v !== undefined && ((v.t === 'bool' && v.v) || (v.t === 'num' && v.v !== 0) || v.t === 'dyn' || (v.t === 'str' && v.v !== ''));


function moduleOf(ev: Evaluator, name: Val | undefined, via: string): Val {
  const n = strOf(name);
  if (n === null) {
    ev.effect({ kind: 'eval', via });
    ev.unknown(`loads a module named at run time (${via})`);
    return DYN;
  }
  ev.imported(n.replace(/^node:/, ''));
  // A file by path: JSON is read as data, anything else runs as code (`node path`), each judged by its path.
  if (/^\.{1,2}\//.test(n)) {
    if (/\.json$/i.test(n)) ev.effect({ kind: 'read', path: n, via });
    else ev.effect({ kind: 'run', argv: ['node', n], line: null, via });
    return DYN;
  }
  if (n.startsWith('/') || n.startsWith('~') || n.startsWith('file:') || n.startsWith('data:') || /^https?:/.test(n)) {
    ev.effect({ kind: 'run', argv: ['node', n.replace(/^file:\/\//, '')], line: null, via });
    return DYN;
  }
  return { t: 'ref', q: normalize(n) };
}

function spawnArgv(file: Val | undefined, args: Val | undefined): Val {
  if (file?.t !== 'str') return DYN;
  if (args === undefined || args.t === 'obj') return { t: 'list', items: [file] };
  if (args.t === 'list') return { t: 'list', items: [file, ...args.items] };
  return DYN;
}

function spawnLike(a: CallArgs, ev: Evaluator, q: string): Val {
  const o = a.pos[1]?.t === 'obj' ? a.pos[1] : a.pos[2];
  const shell = o?.t === 'obj' && truthy(o.props.get('shell'));
  const argv = spawnArgv(a.pos[0], a.pos[1]);
  if (shell) {
    const parts = argvOf(argv);
    runEffect(ev, parts !== null ? { t: 'str', v: parts.join(' ') } : DYN, true, q);
  } else runEffect(ev, argv, false, q);
  return DYN;
}

function fetchLike(a: CallArgs, ev: Evaluator, q: string): Val {
  const first = a.pos[0];
  const url = first?.t === 'obj' ? first.props.get('url') : first;
  const o = first?.t === 'obj' ? first : a.pos[1];
  const method = o?.t === 'obj' ? strOf(o.props.get('method'))?.toUpperCase() : undefined;
  const send = (o?.t === 'obj' && (o.props.has('body') || o.props.has('data'))) || (method !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(method)) || (o?.t === 'obj' && o.props.get('method')?.t === 'dyn');
  netEffect(ev, url, send, q);
  if (o?.t === 'obj') for (const v of o.props.values()) ev.use(v);
  return DYN;
}

function httpRequest(scheme: string): Handler {
  return (a, ev, q) => {
    const first = a.pos[0];
    if (first?.t === 'obj') {
      const host = strOf(first.props.get('hostname') ?? first.props.get('host'));
      const method = strOf(first.props.get('method'))?.toUpperCase() ?? 'GET';
      const url: Val = host !== null ? { t: 'str', v: `${scheme}://${host}${strOf(first.props.get('path')) ?? '/'}` } : DYN;
      netEffect(ev, url, method !== 'GET' || q.endsWith('.request'), q);
      for (const v of first.props.values()) ev.use(v);
      return DYN;
    }
    const method = opt(a, 1, 'method');
    netEffect(ev, first, q.endsWith('.request') && (method === undefined || strOf(method)?.toUpperCase() !== 'GET'), q);
    return DYN;
  };
}

function socketTo(a: CallArgs, ev: Evaluator, q: string): Val {
  const first = a.pos[0];
  let host: string | null = null;
  let port: string | null = null;
  if (first?.t === 'obj') {
    host = strOf(first.props.get('host') ?? first.props.get('hostname')) ?? (first.props.has('host') ? null : 'localhost');
    const p = first.props.get('port');
    port = p?.t === 'num' ? String(p.v) : strOf(p);
  } else if (first?.t === 'num') {
    port = String(first.v);
    host = a.pos[1] === undefined || a.pos[1].t === 'obj' ? 'localhost' : strOf(a.pos[1]);
  }
  if (host !== null && port !== null) ev.effect({ kind: 'network', url: `tcp://${host}:${port}`, send: true, via: q });
  else {
    ev.effect({ kind: 'network', url: null, send: true, via: q });
    ev.unknown(`opens a socket to an address computed at run time (${q})`);
  }
  return DYN;
}

const rm = (recursiveDefault: boolean, dir = false): Handler => (a, ev, q) => {
  const rec = recursiveDefault || truthy(opt(a, 1, 'recursive'));
  pathEffect(ev, 'remove', a.pos[0], q, { recursive: rec, dir });
  return DYN;
};
const write = (append: boolean): Handler => (a, ev, q) => {
  const flag = strOf(opt(a, 2, 'flag') ?? opt(a, 1, 'flags'));
  pathEffect(ev, 'write', a.pos[0], q, { append: append || (flag?.includes('a') ?? false) });
  for (const v of a.pos.slice(1)) ev.use(v);
  return DYN;
};
const read: Handler = (a, ev, q) => (pathEffect(ev, 'read', a.pos[0], q), DYN);
const two = (kind: 'copy' | 'move'): Handler => (a, ev, q) => {
  const from = strOf(a.pos[0]);
  const to = strOf(a.pos[1]);
  ev.effect({ kind, from, to, via: q });
  if (from === null || to === null) ev.unknown(`${kind === 'move' ? 'moves' : 'copies'} a path computed at run time (${q})`);
  return DYN;
};

/** Functions by their normalized name (`fs.rm` stands for rm, rmSync and promises.rm). */
const H: Record<string, Handler> = {
  require: (a, ev, q) => moduleOf(ev, a.pos[0], q),
  import: (a, ev) => moduleOf(ev, a.pos[0], 'import()'),
  'module.require': (a, ev, q) => moduleOf(ev, a.pos[0], q),
  'module.createRequire': () => ({ t: 'ref', q: 'require' }),
  // processes
  'child_process.exec': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'child_process.spawn': spawnLike,
  'child_process.execFile': spawnLike,
  'child_process.fork': (a, ev, q) => (runEffect(ev, spawnArgv({ t: 'str', v: 'node' }, a.pos[0]?.t === 'str' ? { t: 'list', items: [a.pos[0], ...(a.pos[1]?.t === 'list' ? a.pos[1].items : [])] } : DYN), false, q), DYN),
  'Bun.spawn': (a, ev, q) => (runEffect(ev, a.pos[0]?.t === 'obj' ? a.pos[0].props.get('cmd') : a.pos[0], false, q), DYN),
  'Bun.$': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'zx.$': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'execa.execaCommand': (a, ev, q) => (runEffect(ev, a.pos[0], true, q), DYN),
  'execa.execa': spawnLike,
  execa: spawnLike,
  'Deno.Command': (a, ev, q) => (runEffect(ev, spawnArgv(a.pos[0], opt(a, 1, 'args') ?? (a.pos[1] === undefined ? undefined : DYN)), false, q), { t: 'ref', q: 'Deno.Command()' }),
  'Deno.run': (a, ev, q) => (runEffect(ev, opt(a, 0, 'cmd'), false, q), DYN),
  'process.kill': (a, ev, q) => (ev.effect({ kind: 'kill', pid: a.pos[0]?.t === 'num' ? String(a.pos[0].v) : null, signal: strOf(a.pos[1]) ?? (a.pos[1]?.t === 'num' ? String(a.pos[1].v) : null), via: q }), DYN),
  // files
  'fs.rm': rm(false),
  'fs.rmdir': rm(false, true),
  'fs.unlink': rm(false),
  'fs.remove': rm(true),
  'fs.emptyDir': rm(true),
  'fs.emptydir': rm(true),
  rimraf: rm(true),
  'rimraf.sync': rm(true),
  'rimraf.rimraf': rm(true),
  'rimraf.rimrafSync': rm(true),
  'Deno.remove': rm(false),
  'fs.writeFile': write(false),
  'fs.outputFile': write(false),
  'fs.writeJson': write(false),
  'fs.outputJson': write(false),
  'fs.appendFile': write(true),
  'fs.createWriteStream': write(false),
  'fs.truncate': write(false),
  'Deno.writeTextFile': write(false),
  'Deno.writeFile': write(false),
  'Bun.write': write(false),
  'fs.copyFile': two('copy'),
  'fs.cp': two('copy'),
  'fs.copy': two('copy'),
  'Deno.copyFile': two('copy'),
  'fs.rename': two('move'),
  'fs.move': two('move'),
  'Deno.rename': two('move'),
  'fs.symlink': (a, ev, q) => (ev.effect({ kind: 'link', target: strOf(a.pos[0]), path: strOf(a.pos[1]), via: q }), DYN),
  'fs.link': (a, ev, q) => (ev.effect({ kind: 'link', target: strOf(a.pos[0]), path: strOf(a.pos[1]), via: q }), DYN),
  'fs.chmod': (a, ev, q) => (ev.effect({ kind: 'chmod', path: strOf(a.pos[0]), mode: a.pos[1]?.t === 'num' ? a.pos[1].v.toString(8) : strOf(a.pos[1]), via: q }), DYN),
  'fs.chown': (a, ev, q) => (ev.effect({ kind: 'chown', path: strOf(a.pos[0]), via: q }), DYN),
  'fs.readFile': read,
  'fs.createReadStream': read,
  'fs.readJson': read,
  'Deno.readTextFile': read,
  'Deno.readFile': read,
  'fs.open': (a, ev, q) => (/[wa+]/.test(strOf(a.pos[1]) ?? 'r') || (a.pos[1] !== undefined && a.pos[1].t !== 'str') ? pathEffect(ev, 'write', a.pos[0], q) : pathEffect(ev, 'read', a.pos[0], q), DYN),
  // values
  'os.homedir': () => ({ t: 'str', v: '~', path: true }),
  'os.tmpdir': () => ({ t: 'str', v: '/tmp', path: true }),
  'fs.mkdtemp': () => ({ t: 'str', v: '/tmp/tmpasimov', path: true }),
  'path.join': (a) => pathJoin(a.pos),
  'path.resolve': (a) => pathJoin(a.pos),
  'path.normalize': (a) => a.pos[0] ?? DYN,
  'process.cwd': () => ({ t: 'str', v: '.', path: true }),
  'Deno.cwd': () => ({ t: 'str', v: '.', path: true }),
  'Deno.env.get': (a, ev) => (strOf(a.pos[0]) !== null ? envVar(ev, strOf(a.pos[0])!) : (ev.effect({ kind: 'env', name: null, via: 'Deno.env.get' }), DYN)),
  'Deno.env.toObject': () => ({ t: 'env' }),
  'Bun.env': () => ({ t: 'env' }),
  String: (a) => (a.pos[0]?.t === 'str' || a.pos[0]?.t === 'env' ? a.pos[0] : DYN),
  'JSON.stringify': (a, ev) => {
    if (a.pos[0]?.t === 'env') return { t: 'env' };
    for (const v of a.pos) ev.use(v);
    return DYN;
  },
  'Object.entries': (a) => (a.pos[0]?.t === 'env' ? { t: 'env' } : DYN),
  'Object.keys': (a) => (a.pos[0]?.t === 'env' ? { t: 'env' } : DYN),
  'Object.assign': (a) => (a.pos.some((v) => v.t === 'env') ? { t: 'env' } : DYN),
  // code
  eval: (a, ev, q) => evalEffect(ev, a.pos[0], q),
  Function: (a, ev, q) => evalEffect(ev, a.pos[a.pos.length - 1] ?? { t: 'str', v: '' }, q),
  'vm.runInNewContext': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'vm.runInThisContext': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'vm.runInContext': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'vm.Script': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  'vm.compileFunction': (a, ev, q) => evalEffect(ev, a.pos[0], q),
  setTimeout: (a, ev, q) => (a.pos[0]?.t === 'str' || a.pos[0]?.t === 'dyn' && a.pos[0].prefix !== undefined ? evalEffect(ev, a.pos[0], q) : DYN),
  setInterval: (a, ev, q) => (a.pos[0]?.t === 'str' ? evalEffect(ev, a.pos[0], q) : DYN),
  // network
  fetch: fetchLike,
  'node-fetch': fetchLike,
  'undici.fetch': fetchLike,
  'undici.request': fetchLike,
  axios: fetchLike,
  'axios.request': fetchLike,
  'http.request': httpRequest('http'),
  'http.get': httpRequest('http'),
  'https.request': httpRequest('https'),
  'https.get': httpRequest('https'),
  'net.connect': socketTo,
  'net.createConnection': socketTo,
  'tls.connect': socketTo,
  'Deno.connect': socketTo,
  'Bun.connect': socketTo,
  WebSocket: (a, ev, q) => (netEffect(ev, a.pos[0], true, q), DYN),
  EventSource: (a, ev, q) => (netEffect(ev, a.pos[0], false, q), DYN),
  XMLHttpRequest: (_a, ev, q) => (netEffect(ev, DYN, true, q), DYN),
  'dgram.createSocket': (_a, ev, q) => (netEffect(ev, DYN, true, q), DYN),
};

for (const m of ['get', 'delete', 'head', 'options']) H[`axios.${m}`] = (a, ev, q) => (netEffect(ev, a.pos[0], false, q), DYN);
for (const m of ['post', 'put', 'patch']) H[`axios.${m}`] = (a, ev, q) => (netEffect(ev, a.pos[0], true, q), a.pos.slice(1).forEach((v) => ev.use(v)), DYN);

/** Aliases one module or function goes by. */
function normalize(q0: string): string {
  let q = q0.replace(/^node:/, '').replace(/\.default(?=\.|$)/, '');
  if (q.startsWith('fs/promises')) q = `fs${q.slice('fs/promises'.length)}`;
  if (q.startsWith('fs.promises')) q = `fs${q.slice('fs.promises'.length)}`;
  if (q.startsWith('fs-extra')) q = `fs${q.slice('fs-extra'.length)}`;
  if (q.startsWith('graceful-fs')) q = `fs${q.slice('graceful-fs'.length)}`;
  if (q.startsWith('child_process/')) q = 'child_process';
  if (q.startsWith('globalThis.')) q = q.slice('globalThis.'.length);
  if (q === 'process.mainModule' || q === 'require.main') q = 'module';
  if (q.startsWith('Deno.') && q.endsWith('Sync')) q = q.slice(0, -4);
  if (/^(fs|child_process|Bun)\.\w+Sync$/.test(q)) q = q.slice(0, -4);
  if (q === 'zx.$' || q === 'Bun.$') return q;
  return q;
}

const GLOBALS: Record<string, Val> = {
  require: { t: 'ref', q: 'require' },
  module: { t: 'ref', q: 'module' },
  process: { t: 'ref', q: 'process' },
  import: { t: 'ref', q: 'import' },
  eval: { t: 'ref', q: 'eval' },
  Function: { t: 'ref', q: 'Function' },
  fetch: { t: 'ref', q: 'fetch' },
  WebSocket: { t: 'ref', q: 'WebSocket' },
  EventSource: { t: 'ref', q: 'EventSource' },
  XMLHttpRequest: { t: 'ref', q: 'XMLHttpRequest' },
  setTimeout: { t: 'ref', q: 'setTimeout' },
  setInterval: { t: 'ref', q: 'setInterval' },
  Bun: { t: 'ref', q: 'Bun' },
  Deno: { t: 'ref', q: 'Deno' },
  JSON: { t: 'ref', q: 'JSON' },
  Object: { t: 'ref', q: 'Object' },
  String: { t: 'ref', q: 'String' },
  Reflect: { t: 'ref', q: 'Reflect' },
  globalThis: { t: 'ref', q: 'globalThis' },
  global: { t: 'ref', q: 'globalThis' },
  window: { t: 'ref', q: 'globalThis' },
  self: { t: 'ref', q: 'globalThis' },
  this: DYN,
  super: DYN,
  true: { t: 'bool', v: true },
  false: { t: 'bool', v: false },
  null: NONE,
  undefined: NONE,
};

/** Modules whose members do something: reaching them in a way the analysis cannot follow is an unknown. */
const ACTIVE_MODULES = new Set(['child_process', 'fs', 'net', 'tls', 'http', 'https', 'dgram', 'vm', 'Bun', 'Deno', 'process', 'module', 'worker_threads', 'cluster', 'inspector', 'zx', 'execa', 'rimraf']);
const KEYWORDS = new Set(['const', 'let', 'var', 'function', 'class', 'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'default', 'try', 'catch', 'finally', 'break', 'continue', 'of', 'in', 'instanceof', 'export', 'async', 'static', 'get', 'set', 'extends', 'interface', 'type', 'as', 'satisfies', 'implements', 'declare', 'enum', 'namespace', 'readonly']);

/** Calls into the active modules that only compute, inspect or read (what they read is judged by its path). */
const JS_HARMLESS = /^(?:fs\.(?:exists|stat|lstat|fstat|readdir|opendir|access|realpath|existsSync|statSync|lstatSync|readdirSync|accessSync|realpathSync|watch|watchFile|promises)|process\.(?:cwd|exit|on|once|off|nextTick|hrtime|hrtime\.bigint|memoryUsage|cpuUsage|uptime|emitWarning|stdout\.write|stderr\.write|stdin\.on|stdin\.setEncoding|stdin\.resume|getuid|geteuid|getgid|umask|exitCode|argv\.slice|env\.\w+)|module\.createRequire|worker_threads\.isMainThread|Bun\.(?:file|version|sleep|sleepSync|hash|inspect|env)|Deno\.(?:readDir|stat|lstat|cwd|exit|args|version|inspect|env\.get|env\.toObject))$/;

const js: Lang = {
  name: 'js',
  // A call into a module that reaches the system, not modelled above: unknown, never assumed harmless.
  unmodeled: (q) => ACTIVE_MODULES.has(q.split('.')[0]!) && q.includes('.') && !JS_HARMLESS.test(q),
  reflect: new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__lookupGetter__', 'mainModule', 'binding', '_linkedBinding', 'dlopen', 'prepareStackTrace', 'captureStackTrace']),
  keywords: KEYWORDS,
  global(name) {
    return Object.hasOwn(GLOBALS, name) ? GLOBALS[name] : undefined;
  },
  member(q, name, ev) {
    if (name === 'constructor' || name === '__proto__' || name === 'prototype' || name === '__defineGetter__' || name === '__lookupGetter__') {
      ev.effect({ kind: 'eval', via: `${q}.${name}` });
      ev.unknown(`reaches objects through reflection (${name})`);
      return DYN;
    }
    if (q === 'process' && name === 'env') return { t: 'env' };
    if (q === 'Bun' && name === 'env') return { t: 'env' };
    if (q === 'process' && (name === 'binding' || name === '_linkedBinding' || name === 'dlopen')) {
      ev.effect({ kind: 'eval', via: `process.${name}` });
      ev.unknown(`reaches node internals (process.${name})`);
      return DYN;
    }
    if (q === 'globalThis') return js.global(name) ?? DYN;
    if (name === 'then' && ACTIVE_MODULES.has(q.split('.')[0]!)) {
      ev.effect({ kind: 'eval', via: `${q}.then` });
      ev.unknown(`uses ${q} through a promise callback, so what it calls cannot be followed`);
      return DYN;
    }
    if (q === 'Reflect' && (name === 'apply' || name === 'construct' || name === 'get')) return { t: 'ref', q: `Reflect.${name}` };
    return { t: 'ref', q: normalize(`${q}.${name}`) };
  },
  sink(q) {
    if (/^(child_process\.\w+|Bun\.(spawn|\$)|Deno\.(Command|run)|zx\.\$|execa(\.\w+)?)$/.test(q)) return 'run';
    if (/^(fs\.(rm|rmdir|unlink|remove|emptyDir)|rimraf(\.\w+)?|Deno\.remove)$/.test(q)) return 'remove';
    if (/^(fs\.(writeFile|appendFile|createWriteStream|copyFile|cp|rename|symlink|chmod|outputFile|copy|move)|Deno\.write\w*|Bun\.write)$/.test(q)) return 'write';
    if (/^(eval|Function|require|import|module\.require|vm\.\w+|Reflect\.(apply|construct))$/.test(q)) return 'eval';
    if (/^(fetch|https?\.(request|get)|net\.\w+|tls\.connect|WebSocket|axios(\.\w+)?|dgram\.\w+)$/.test(q)) return 'network';
    return null;
  },
  call(q0, a, ev, isNew) {
    const q = normalize(q0);
    const h = H[q];
    if (h) return h(a, ev, q);
    if (q === 'Reflect.apply' && a.pos[0]?.t === 'ref') return js.call(a.pos[0].q, { pos: a.pos[2]?.t === 'list' ? a.pos[2].items : [DYN], kw: new Map() }, ev, false);
    if (q === 'Deno.Command().output' || q === 'Deno.Command().spawn') return DYN;
    if (ACTIVE_MODULES.has(q) && !isNew) return undefined;
    return undefined;
  },
  method(recv, name, a) {
    if (a.kw.has('$property')) return undefined;
    if (recv.t === 'env') return undefined;
    if (recv.t === 'str') {
      switch (name) {
        case 'toString': case 'trim': case 'valueOf': return a.pos.length === 0 ? { t: 'str', v: name === 'trim' ? recv.v.trim() : recv.v } : DYN;
        case 'concat': return a.pos.every((v) => v.t === 'str') ? { t: 'str', v: recv.v + a.pos.map((v) => (v as { v: string }).v).join('') } : DYN;
        case 'replace': case 'replaceAll': {
          const x = strOf(a.pos[0]);
          const y = strOf(a.pos[1]);
          return x !== null && y !== null ? { t: 'str', v: name === 'replace' ? recv.v.replace(x, () => y) : recv.v.split(x).join(y) } : DYN;
        }
        default: return undefined;
      }
    }
    if (recv.t === 'list' && name === 'join') {
      const parts = argvOf(recv);
      const sep = a.pos.length === 0 ? ',' : strOf(a.pos[0]);
      return parts !== null && sep !== null ? { t: 'str', v: parts.join(sep) } : DYN;
    }
    return undefined;
  },
  statement(toks, a, b, ev) {
    let s = a;
    while (s < b && toks[s]!.k === 'name' && (toks[s]!.v === 'export' || toks[s]!.v === 'declare')) s++;
    const t = toks[s];
    if (!t || t.k !== 'name' || t.v !== 'import' || toks[s + 1]?.v === '(' || toks[s + 1]?.v === '.') return s > a ? s : null;
    // import x from 'm' / import * as x from 'm' / import {a as b} from 'm' / import 'm' / import type … (nothing)
    if (toks[s + 1]?.v === 'type') return b;
    const fromAt = toks.findIndex((x, k) => k > s && k < b && x.k === 'name' && x.v === 'from' && toks[k + 1]?.k === 'str');
    const modTok = fromAt > 0 ? toks[fromAt + 1]! : toks[s + 1]?.k === 'str' ? toks[s + 1]! : null;
    if (!modTok) return null;
    const mod = moduleOf(ev, { t: 'str', v: modTok.v }, 'import');
    const end = fromAt > 0 ? fromAt : s + 1;
    for (let k = s + 1; k < end; k++) {
      const x = toks[k]!;
      if (x.k === 'op' && x.v === '*' && toks[k + 1]?.v === 'as' && toks[k + 2]?.k === 'name') {
        ev.bind(toks[k + 2]!.v, mod);
        k += 2;
      } else if (x.k === 'op' && x.v === '{') {
        const close = matching(toks, k, end);
        for (let j = k + 1; j < close; j++) {
          const n = toks[j]!;
          if (n.k !== 'name' && n.k !== 'str') continue;
          if (n.v === 'type') continue;
          let local = n.v;
          if (toks[j + 1]?.v === 'as' && toks[j + 2]?.k === 'name') {
            local = toks[j + 2]!.v;
            j += 2;
          }
          ev.bind(local, mod.t === 'ref' ? js.member(mod.q, n.v, ev) : DYN);
        }
        k = close;
      } else if (x.k === 'name' && x.v !== 'as') {
        ev.bind(x.v, mod);
      }
    }
    return b;
  },
  bindings(toks, a, b, out) {
    for (let i = a; i < b; i++) {
      const t = toks[i]!;
      if (t.k === 'op' && t.v === '=>') {
        const p = toks[i - 1];
        if (p?.k === 'name') out(p.v);
        else if (p?.v === ')') {
          let d = 0;
          for (let k = i - 1; k >= a; k--) {
            const x = toks[k]!;
            if (x.v === ')') d++;
            else if (x.v === '(') {
              d--;
              if (d === 0) break;
            } else if (x.k === 'name' && (toks[k - 1]?.v === '(' || toks[k - 1]?.v === ',' || toks[k - 1]?.v === '{' || toks[k - 1]?.v === '...')) out(x.v);
          }
        }
      } else if (t.k === 'name' && (t.v === 'function' || t.v === 'catch')) {
        let k = i + 1;
        if (toks[k]?.k === 'name') out(toks[k++]!.v);
        if (toks[k]?.v === '(') {
          const close = matching(toks, k, b);
          for (let j = k + 1; j < close; j++) if (toks[j]!.k === 'name' && (toks[j - 1]!.v === '(' || toks[j - 1]!.v === ',' || toks[j - 1]!.v === '{' || toks[j - 1]!.v === '...')) out(toks[j]!.v);
        }
      } else if (t.k === 'name' && (t.v === 'const' || t.v === 'let' || t.v === 'var') && toks[i + 1]?.k === 'name' && (toks[i + 2]?.v === 'of' || toks[i + 2]?.v === 'in')) {
        out(toks[i + 1]!.v);
      } else if (t.k === 'name' && t.v === 'class' && toks[i + 1]?.k === 'name') out(toks[i + 1]!.v);
    }
  },
  tokenize: tokenizeJs,
};

/** What a JavaScript or TypeScript program does. Never throws; a tokenizer error is reported in `error`. */
export function analyzeJavaScript(code: string): CodeEffects {
  if (code.length > MAX_CODE_CHARS) return { imports: [], effects: [], unknowns: ['the code is too large to read'], error: 'too large' };
  const { toks, error } = tokenizeJs(code);
  const fx = evaluate(js, toks);
  if (error) fx.error = error;
  return fx;
}
