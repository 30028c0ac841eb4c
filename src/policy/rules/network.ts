// Shared helper for rules: what a network command talks to, what it sends, where it saves, and whether it listens.
// One parse per command (cached), used by the net, secrets, exec and dev families.

import type { SimpleCommand, Word } from '../../shell/types.ts';
import type { RuleContext } from '../rule.ts';
import type { UrlInfo } from '../urls.ts';
import { parseRemoteHost } from '../urls.ts';
import { basename, commandSlots, programName, staticValue } from '../../shell/program.ts';

/** One place a command connects to. */
export interface Endpoint {
  /** The URL, `host:port` or host as written; null when only known at run time. */
  text: string | null;
  /** Lower-cased host, or null when dynamic or unparseable. */
  host: string | null;
  /** Classification of the URL/host; null when dynamic. */
  info: UrlInfo | null;
  word?: Word;
}

/** Something a command sends to its endpoints. */
export interface Upload {
  /** `file`: a file's content (value is the path); `data`: inline data; `stdin`: whatever arrives on standard input. */
  kind: 'file' | 'data' | 'stdin';
  value: string;
  word?: Word;
  /** True when the value is only known at run time. */
  dynamic: boolean;
}

export interface NetTarget {
  /** The program (curl, wget, nc, ssh, scp, …), lower-cased. */
  tool: string;
  /** The first endpoint's host, or null. */
  host: string | null;
  /** The first endpoint's text when it is a URL. */
  url?: string;
  endpoints: Endpoint[];
  uploads: Upload[];
  /** Opens a listening socket (nc -l, socat TCP-LISTEN, ssh -L/-D, openssl s_server). */
  listens: boolean;
  /** A program run for each connection (nc -e X, socat EXEC:X / SYSTEM:X). */
  exec: string | null;
  /** Explicit request method (curl -X, wget --method, http METHOD), upper-cased. */
  method: string | null;
  /** Files the response is saved to (curl -o/-O, wget default/-O/-P); `-` means standard output. */
  outputs: string[];
  /** Options outside the set known to be harmless for a plain download (allow decisions need none). */
  unusual: string[];
  /** An interactive or remote-command session (ssh, telnet, sftp, ftp, mosh…). */
  session: boolean;
  /** Options that make the client run a local command (ssh ProxyCommand, scp -S, rsync -e, wget --use-askpass). */
  localCommands: string[];
  /** Dry run / listing only: nothing is transferred (rsync -n, curl --help). */
  dryRun: boolean;
}

/**
 * Facts about one command that several rules need (its interpreter invocation, inline code, network
 * target, files read…), computed once per command. Kept in the command's slots (shell/program.ts): a
 * property load is far cheaper than a Map or WeakMap lookup, and these are hit by dozens of rules per
 * command. Context-dependent facts record the context they were computed for. Every field is always
 * present (undefined until computed), so that all facts objects share one shape.
 */
export interface CommandFacts {
  ctx: RuleContext | undefined;
  inv: unknown;
  code: readonly string[] | undefined;
  net: NetTarget | null | undefined;
  reads: unknown;
  socketKind: unknown;
  /** writes.ts: the paths the command writes (context-bound). */
  writes: unknown;
  /** writes.ts: find's parsed arguments (a pure function of the words). */
  find: unknown;
  /** system.ts: the first path target of each persistence kind (context-bound, like the targets). */
  persistence: unknown;
}

export function factsOf(cmd: SimpleCommand): CommandFacts {
  const slots = commandSlots(cmd);
  const own = slots.facts as CommandFacts | undefined;
  if (own !== undefined) return own;
  // Every field present from the start: one object shape for all commands keeps the loads monomorphic.
  const f: CommandFacts = { ctx: undefined, inv: undefined, code: undefined, net: undefined, reads: undefined, socketKind: undefined, writes: undefined, find: undefined, persistence: undefined };
  slots.facts = f;
  return f;
}

/** Facts valid for this context: a fresh set when the command is seen under another context. */
export function ctxFacts(cmd: SimpleCommand, ctx: RuleContext): CommandFacts {
  const f = factsOf(cmd);
  if (f.ctx !== ctx) {
    f.ctx = ctx;
    f.net = undefined;
    f.reads = undefined;
    f.socketKind = undefined;
    f.writes = undefined;
    f.persistence = undefined;
  }
  return f;
}

const CURL = new Set(['curl']);
const WGET = new Set(['wget', 'wget2']);
const HTTPIE = new Set(['http', 'https', 'xh', 'xhs', 'httpie']);
const NETCAT = new Set(['nc', 'ncat', 'netcat', 'nc.traditional', 'nc.openbsd', 'pwncat', 'pwncat-cs']);
const SESSIONS = new Set(['telnet', 'mosh', 'rlogin', 'rsh', 'ftp', 'lftp', 'tftp', 'ncftp', 'sftp', 'smbclient']);

/** Every program networkTarget understands. */
export const NETWORK_PROGRAMS: readonly string[] = [
  ...CURL, ...WGET, ...HTTPIE, ...NETCAT, ...SESSIONS, 'socat', 'ssh', 'scp', 'rsync', 'openssl',
];
const NETWORK_SET = new Set(NETWORK_PROGRAMS);

/** Programs whose output is data fetched from the network (for "download piped into an interpreter"). */
export const DOWNLOADERS: ReadonlySet<string> = new Set([
  ...CURL, ...WGET, ...HTTPIE, ...NETCAT, 'socat', 'telnet', 'openssl', 'fetch', 'lwp-request', 'lwp-download', 'get',
  'aria2c', 'axel', 'curlie', 'wcurl', 'ftp', 'tftp', 'lftp', 'busybox-wget', 'invoke-webrequest', 'iwr', 'irm',
]);

/** Tools that open raw sockets: what they print is whatever the other side sends. */
export const SOCKET_TOOLS: ReadonlySet<string> = new Set([...NETCAT, 'socat', 'telnet', 'openssl', 'ztcp']);

/** A word's value as a network client receives it: static words, and URLs whose `?`/`*` no file name can match. */
export function netLiteral(w: Word | undefined): string | null {
  return lit(w);
}

function lit(w: Word | undefined): string | null {
  const v = staticValue(w);
  if (v !== null || !w) return v;
  // A URL with `?` or `*` is a glob to bash, but no file name can match `scheme://…`: it stays as written.
  // httpie's localhost shorthand (`:9200/_cat/indices?v`) would need a directory named `:9200` to match anything.
  if (w.glob && w.vars.length === 0 && w.substitutions.length === 0 && /^([a-z][a-z0-9+.-]*:\/\/|:\d+\/)/i.test(w.value)) return w.value;
  return null;
}


/** What a network command connects to and sends; null when the program is not a network client we know. */
export function networkTarget(cmd: SimpleCommand, ctx: RuleContext): NetTarget | null {
  const facts = ctxFacts(cmd, ctx);
  if (facts.net !== undefined) return facts.net;
  let target: NetTarget | null = null;
  const prog = programName(cmd);
  if (prog !== null && NETWORK_SET.has(prog)) {
    const t = blank(prog);
    const args = cmd.argv.slice(1);
    if (CURL.has(prog)) parseCurl(t, args, ctx);
    else if (WGET.has(prog)) parseWget(t, args, ctx);
    else if (HTTPIE.has(prog)) parseHttpie(t, args, ctx, prog);
    else if (NETCAT.has(prog)) parseNetcat(t, args, ctx);
    else if (prog === 'socat') parseSocat(t, args, ctx);
    else if (prog === 'ssh') parseSsh(t, args, ctx);
    else if (prog === 'scp') parseScp(t, args, ctx);
    else if (prog === 'rsync') parseRsync(t, args, ctx);
    else if (prog === 'openssl') parseOpenssl(t, args, ctx);
    else parseSession(t, args, ctx);
    // What the command reads on standard input is sent by the tools that forward stdin.
    if (sendsStdin(t)) {
      const s = cmd.stdin;
      if (s.kind === 'file') {
        const v = lit(s.path);
        t.uploads.push({ kind: 'file', value: v ?? s.path.value, word: s.path, dynamic: v === null });
      } else if (s.kind !== 'tty') {
        t.uploads.push({ kind: 'stdin', value: '-', dynamic: true });
      }
    }
    const first = t.endpoints[0];
    if (first) {
      t.host = first.host;
      if (first.text !== null && /^[a-z][a-z0-9+.-]*:\/\//i.test(first.text)) t.url = first.text;
    }
    target = t;
  }
  facts.net = target;
  return target;
}

function blank(tool: string): NetTarget {
  return {
    tool, host: null, endpoints: [], uploads: [], listens: false, exec: null, method: null, outputs: [],
    unusual: [], session: false, localCommands: [], dryRun: false,
  };
}

function sendsStdin(t: NetTarget): boolean {
  if (NETCAT.has(t.tool) || t.tool === 'telnet' || t.tool === 'openssl') return true;
  if (t.tool === 'ssh') return t.session;
  if (t.tool === 'socat') return false; // handled per address
  return false;
}

function endpoint(ctx: RuleContext, w: Word | undefined, text: string | null): Endpoint {
  if (text === null) return { text: null, host: null, info: null, ...(w ? { word: w } : {}) };
  const info = ctx.url(text);
  return { text, host: info.host, info, ...(w ? { word: w } : {}) };
}

function hostEndpoint(ctx: RuleContext, w: Word | undefined, host: string | null): Endpoint {
  if (host === null) return { text: null, host: null, info: null, ...(w ? { word: w } : {}) };
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const info = ctx.url(h);
  return { text: host, host: info.host ?? host.toLowerCase(), info, ...(w ? { word: w } : {}) };
}

// ---------------------------------------------------------------------------------------------------------
// A small option scanner: each program declares which options take a value; the callback sees every option.

interface Spec {
  short: string;
  long: ReadonlySet<string>;
  /** Long options written with one dash (`-proxy`): openssl, find style. */
  singleDashLong?: boolean;
}

interface Opt {
  name: string;
  value: string | null;
  /** The value's word when it has one (for dynamic checks). */
  word: Word | undefined;
  dynamic: boolean;
}

function scan(words: readonly Word[], spec: Spec, onOpt: (o: Opt) => void, onOperand: (w: Word, v: string | null) => void): void {
  let done = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = lit(w);
    const s = v ?? w.value;
    if (done || s.length < 2 || s[0] !== '-') {
      onOperand(w, v);
      continue;
    }
    if (s === '--') {
      done = true;
      continue;
    }
    if (s.startsWith('--') || spec.singleDashLong) {
      const body = s.startsWith('--') ? s.slice(2) : s.slice(1);
      const eq = body.indexOf('=');
      if (eq >= 0) {
        onOpt({ name: body.slice(0, eq), value: body.slice(eq + 1), word: w, dynamic: v === null });
      } else if (spec.long.has(body) && i + 1 < words.length) {
        const nw = words[++i]!;
        const nv = lit(nw);
        onOpt({ name: body, value: nv ?? nw.value, word: nw, dynamic: nv === null });
      } else {
        onOpt({ name: body, value: null, word: w, dynamic: v === null });
      }
      continue;
    }
    for (let j = 1; j < s.length; j++) {
      const ch = s[j]!;
      if (spec.short.includes(ch)) {
        const rest = s.slice(j + 1);
        if (rest.length > 0) onOpt({ name: ch, value: rest, word: w, dynamic: v === null });
        else if (i + 1 < words.length) {
          const nw = words[++i]!;
          const nv = lit(nw);
          onOpt({ name: ch, value: nv ?? nw.value, word: nw, dynamic: nv === null });
        } else onOpt({ name: ch, value: null, word: w, dynamic: v === null });
        break;
      }
      onOpt({ name: ch, value: null, word: w, dynamic: v === null });
    }
  }
}

/** The file name curl -O / wget save a URL under: the last path segment, or index.html. */
export function urlBasename(u: string): string {
  let s = u.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const q = s.search(/[?#]/);
  if (q >= 0) s = s.slice(0, q);
  const slash = s.indexOf('/');
  if (slash < 0) return 'index.html';
  const b = basename(s.slice(slash));
  return b === '' || s.endsWith('/') ? 'index.html' : b;
}

// ---------------------------------------------------------------------------------------------------------
// curl

const CURL_SPEC: Spec = {
  short: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  long: new Set([
    'url', 'data', 'data-ascii', 'data-binary', 'data-raw', 'data-urlencode', 'json', 'form', 'form-string', 'header',
    'proxy-header', 'user-agent', 'referer', 'cookie', 'cookie-jar', 'continue-at', 'dump-header', 'cert', 'cert-type',
    'key', 'key-type', 'pass', 'cacert', 'capath', 'config', 'max-time', 'connect-timeout', 'output', 'output-dir',
    'range', 'upload-file', 'user', 'proxy-user', 'proxy', 'write-out', 'request', 'speed-time', 'speed-limit',
    'time-cond', 'retry', 'retry-delay', 'retry-max-time', 'max-redirs', 'max-filesize', 'limit-rate', 'resolve',
    'connect-to', 'interface', 'local-port', 'unix-socket', 'abstract-unix-socket', 'noproxy', 'preproxy', 'socks4',
    'socks4a', 'socks5', 'socks5-hostname', 'oauth2-bearer', 'aws-sigv4', 'ciphers', 'tls-max', 'url-query', 'variable',
    'trace', 'trace-ascii', 'stderr', 'ftp-port', 'quote', 'telnet-option', 'mail-from', 'mail-rcpt', 'mail-auth',
    'login-options', 'netrc-file', 'hostpubmd5', 'hostpubsha256', 'pubkey', 'crlfile', 'dns-servers', 'doh-url',
    'engine', 'krb', 'delegation', 'keepalive-time', 'happy-eyeballs-timeout-ms', 'expect100-timeout', 'proto',
    'proto-redir', 'proto-default', 'request-target', 'sasl-authzid', 'service-name', 'alt-svc', 'hsts',
    'etag-compare', 'etag-save', 'parallel-max', 'rate', 'create-file-mode', 'tftp-blksize', 'proxy-cacert',
    'proxy-cert', 'proxy-key', 'proxy-pass', 'random-file', 'egd-file', 'max-time', 'ip-tos', 'vlan-priority',
    'ech', 'ssl-sessions', 'knownhosts',
  ]),
};

/** curl options that are harmless for a plain download (canonical long names and short letters). */
const CURL_SAFE = new Set([
  's', 'S', 'L', 'f', 'i', 'I', 'v', 'k', 'o', 'O', 'H', 'A', 'X', 'm', 'w', 'e', 'u', 'b', 'C', 'r', 'z', 'R', 'g', '4',
  '6', 'j', 'n', 'N', 'J', '#', 'q', 'G', 'Z', 'D', 'x', 'silent', 'show-error', 'location', 'fail', 'fail-with-body',
  'include', 'head', 'verbose', 'insecure', 'output', 'remote-name', 'remote-name-all', 'remote-header-name',
  'create-dirs', 'output-dir', 'header', 'user-agent', 'request', 'max-time', 'connect-timeout', 'retry',
  'retry-delay', 'retry-max-time', 'retry-all-errors', 'retry-connrefused', 'max-redirs', 'write-out', 'referer', 'user',
  'cookie', 'continue-at', 'range', 'time-cond', 'remote-time', 'globoff', 'ipv4', 'ipv6', 'http1.0', 'http1.1', 'http2',
  'http2-prior-knowledge', 'http3', 'http3-only', 'tlsv1', 'tlsv1.0', 'tlsv1.1', 'tlsv1.2', 'tlsv1.3', 'tls-max', 'proto',
  'proto-redir', 'netrc', 'netrc-optional', 'cacert', 'capath', 'progress-bar', 'no-progress-meter',
  'no-buffer', 'limit-rate', 'keepalive-time', 'no-keepalive', 'resolve', 'connect-to', 'url', 'oauth2-bearer',
  'location-trusted', 'max-filesize', 'raw', 'tr-encoding', 'path-as-is', 'proxy', 'noproxy', 'dump-header', 'stderr',
  'styled-output', 'no-styled-output', 'fail-early', 'parallel', 'parallel-max', 'parallel-immediate', 'disable',
  'compressed', 'get', 'no-clobber', 'remove-on-error', 'ssl-reqd', 'ssl', 'ca-native', 'no-alpn',
  'no-npn', 'no-sessionid', 'ignore-content-length', 'digest', 'basic', 'anyauth', 'ntlm', 'negotiate', 'no-fail',
  'show-headers', 'no-show-error', 'no-silent', 'no-location', 'no-verbose', 'no-include', 'xattr', 'http0.9',
  'ssl-no-revoke', 'ssl-revoke-best-effort', 'sslv3', 'pinnedpubkey', 'crlf', 'list-only', 'ftp-pasv', 'ftp-ssl',
  'ftp-create-dirs', 'ftp-method', 'etag-compare', 'etag-save', 'rate', 'happy-eyeballs-timeout-ms', 'expect100-timeout',
]);

const CURL_ALIASES: Readonly<Record<string, string>> = {
  'data': 'd', 'data-ascii': 'd', 'data-binary': 'data-binary', 'request': 'X', 'output': 'o', 'remote-name': 'O',
  'upload-file': 'T', 'form': 'F', 'get': 'G', 'head': 'I', 'url': 'url', 'config': 'K', 'user': 'u', 'header': 'H',
};

function parseCurl(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  let remoteName = false;
  let remoteNameAll = false;
  let outputDir: string | null = null;
  let get = false;
  const data: Upload[] = [];
  const urlWords: { w: Word; v: string | null }[] = [];
  scan(args, CURL_SPEC, (o) => {
    const name = Object.hasOwn(CURL_ALIASES, o.name) ? CURL_ALIASES[o.name]! : o.name;
    if (!CURL_SAFE.has(o.name) && !CURL_SAFE.has(name)) {
      if (!(['d', 'data-binary', 'data-raw', 'data-urlencode', 'json', 'F', 'form-string', 'T'].includes(name))) t.unusual.push(o.name);
    }
    const val = o.value;
    switch (name) {
      case 'url':
        if (o.word) urlWords.push({ w: o.word, v: o.dynamic ? null : val });
        break;
      case 'H':
      case 'proxy-header':
      case 'url-query':
        // `-H @file` sends a file's lines as headers; `--url-query @file` puts a file in the URL.
        if (val !== null && val.startsWith('@')) {
          data.push(val === '@-' ? { kind: 'stdin', value: '-', dynamic: true } : { kind: 'file', value: val.slice(1), ...(o.word ? { word: o.word } : {}), dynamic: o.dynamic });
          t.unusual.push(name);
        } else if (name === 'url-query') t.unusual.push(name);
        break;
      case 'w':
      case 'write-out':
        // `-w @file` prints a local file as the output format.
        if (val !== null && val.startsWith('@')) t.unusual.push('w@');
        break;
      case 'X':
        if (val !== null && !o.dynamic) t.method = val.toUpperCase();
        else t.method = 'DYNAMIC';
        if (t.method !== 'GET' && t.method !== 'HEAD') t.unusual.push('X');
        break;
      case 'I':
        t.method ??= 'HEAD';
        break;
      case 'G':
        get = true;
        break;
      case 'o':
        if (val !== null) t.outputs.push(val);
        break;
      case 'O':
        remoteName = true;
        break;
      case 'remote-name-all':
        remoteNameAll = true;
        break;
      case 'output-dir':
        outputDir = val;
        break;
      case 'd':
      case 'data-binary':
      case 'data-urlencode':
      case 'json':
        if (val !== null) data.push(curlData(val, name, o));
        break;
      case 'data-raw':
      case 'form-string':
        if (val !== null) data.push({ kind: 'data', value: val, ...(o.word ? { word: o.word } : {}), dynamic: o.dynamic });
        break;
      case 'F':
        if (val !== null) data.push(curlForm(val, o));
        break;
      case 'T':
        if (val !== null) {
          if (val === '-' || val === '.') data.push({ kind: 'stdin', value: '-', dynamic: true });
          else data.push({ kind: 'file', value: val, ...(o.word ? { word: o.word } : {}), dynamic: o.dynamic });
          t.method ??= 'PUT';
        }
        break;
      case 'h':
      case 'help':
      case 'V':
      case 'version':
      case 'manual':
      case 'M':
        t.dryRun = true;
        break;
      default:
        break;
    }
  }, (w, v) => urlWords.push({ w, v }));
  for (const { w, v } of urlWords) t.endpoints.push(endpoint(ctx, w, v));
  // -G sends -d data in the query string: still sent, but a plain literal query is a read, not an upload.
  for (const d of data) {
    if (get && d.kind === 'data') continue;
    t.uploads.push(d);
  }
  if (data.length > 0 && !get) t.method ??= 'POST';
  if (remoteName || remoteNameAll) {
    for (const { v } of urlWords) if (v !== null) t.outputs.push(outputDir ? `${outputDir}/${urlBasename(v)}` : urlBasename(v));
  } else if (outputDir) {
    t.outputs = t.outputs.map((o) => (o === '-' || o.startsWith('/') ? o : `${outputDir}/${o}`));
  }
  if (t.outputs.length === 0) t.outputs.push('-');
}

/** `-d @file`, `-d @-`, `--data-urlencode name@file`, plain data. */
function curlData(val: string, name: string, o: Opt): Upload {
  const word = o.word ? { word: o.word } : {};
  let fileRef: string | null = null;
  if (val.startsWith('@')) fileRef = val.slice(1);
  else if (name === 'data-urlencode') {
    const at = val.indexOf('@');
    const eq = val.indexOf('=');
    if (at > 0 && (eq < 0 || at < eq)) fileRef = val.slice(at + 1);
  }
  if (fileRef !== null) {
    if (fileRef === '-') return { kind: 'stdin', value: '-', dynamic: true };
    return { kind: 'file', value: fileRef, ...word, dynamic: o.dynamic };
  }
  return { kind: 'data', value: val, ...word, dynamic: o.dynamic };
}

/** `-F name=@file`, `-F name=<file` (content from a file), `-F name=value`. */
function curlForm(val: string, o: Opt): Upload {
  const word = o.word ? { word: o.word } : {};
  const eq = val.indexOf('=');
  const rhs = eq >= 0 ? val.slice(eq + 1) : val;
  if (rhs.startsWith('@') || rhs.startsWith('<')) {
    const file = rhs.slice(1).split(';')[0]!;
    if (file === '-') return { kind: 'stdin', value: '-', dynamic: true };
    return { kind: 'file', value: file, ...word, dynamic: o.dynamic };
  }
  return { kind: 'data', value: val, ...word, dynamic: o.dynamic };
}

// ---------------------------------------------------------------------------------------------------------
// wget

const WGET_SPEC: Spec = {
  short: 'OoaPUetTwiBQlARDXIn',
  long: new Set([
    'output-document', 'output-file', 'append-output', 'directory-prefix', 'user-agent', 'execute', 'tries', 'timeout',
    'wait', 'input-file', 'base', 'quota', 'level', 'accept', 'reject', 'domains', 'exclude-directories',
    'include-directories', 'post-data', 'post-file', 'body-data', 'body-file', 'method', 'header', 'user', 'password',
    'http-user', 'http-password', 'load-cookies', 'save-cookies', 'referer', 'limit-rate', 'ca-certificate',
    'certificate', 'private-key', 'bind-address', 'use-askpass', 'config', 'proxy-user', 'proxy-password',
    'dns-timeout', 'connect-timeout', 'read-timeout', 'waitretry', 'restrict-file-names', 'default-page', 'progress',
    'local-encoding', 'remote-encoding', 'max-redirect', 'accept-regex', 'reject-regex', 'cut-dirs', 'backups',
    'report-speed', 'ca-directory', 'certificate-type', 'private-key-type', 'secure-protocol', 'ciphers', 'regex-type',
    'exclude-domains', 'follow-tags', 'ignore-tags', 'warc-file', 'rejected-log', 'hsts-file', 'compression',
  ]),
};

const WGET_SAFE = new Set([
  'q', 'O', 'P', 'c', 'N', 'r', 'l', 'n', 'k', 'p', 'E', 'm', 'A', 'R', 'U', 'S', 'T', 't', 'w', 'x', '4', '6', 'v', 'o',
  'a', 'K', 'H', 'D', 'L', 'np', 'nd', 'nH', 'nc', 'nv',
  'quiet', 'verbose', 'output-document', 'directory-prefix', 'continue', 'timestamping', 'recursive', 'level',
  'no-parent', 'no-directories', 'no-host-directories', 'no-clobber', 'no-verbose', 'convert-links',
  'page-requisites', 'adjust-extension', 'mirror', 'accept', 'reject', 'user-agent', 'server-response', 'spider',
  'timeout', 'tries', 'wait', 'random-wait', 'no-check-certificate', 'header', 'limit-rate', 'show-progress',
  'progress', 'content-disposition', 'https-only', 'max-redirect', 'cut-dirs', 'force-directories', 'inet4-only',
  'inet6-only', 'user', 'password', 'http-user', 'http-password', 'referer', 'no-cache', 'compression',
  'read-timeout', 'connect-timeout', 'dns-timeout', 'waitretry', 'retry-connrefused', 'span-hosts', 'domains',
  'follow-ftp', 'no-proxy', 'ca-certificate', 'restrict-file-names', 'output-file', 'append-output', 'backup-converted',
  'relative', 'exclude-directories', 'include-directories', 'no-use-server-timestamps', 'trust-server-names',
  'retry-on-http-error', 'ignore-case', 'no-dns-cache', 'no-cookies', 'keep-session-cookies', 'auth-no-challenge',
  'ignore-length', 'save-headers', 'no-if-modified-since', 'start-pos', 'unlink', 'default-page', 'quota',
]);

function parseWget(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  let docOut: string | null = null;
  let prefix: string | null = null;
  const urls: { w: Word; v: string | null }[] = [];
  let post = false;
  scan(args, WGET_SPEC, (o) => {
    let name = o.name;
    // `-nv`, `-nc`, `-nd`, `-nH`, `-np`: wget's two-letter single-dash options.
    if (name === 'n' && o.value !== null) name = `n${o.value}`;
    const val = o.value;
    switch (name) {
      case 'O':
      case 'output-document':
        docOut = val;
        break;
      case 'P':
      case 'directory-prefix':
        prefix = val;
        break;
      case 'post-data':
      case 'body-data':
        if (val !== null) t.uploads.push({ kind: 'data', value: val, ...(o.word ? { word: o.word } : {}), dynamic: o.dynamic });
        post = true;
        break;
      case 'post-file':
      case 'body-file':
        if (val !== null) t.uploads.push({ kind: 'file', value: val, ...(o.word ? { word: o.word } : {}), dynamic: o.dynamic });
        post = true;
        break;
      case 'method':
        t.method = val !== null && !o.dynamic ? val.toUpperCase() : 'DYNAMIC';
        break;
      case 'i':
      case 'input-file':
        t.endpoints.push({ text: null, host: null, info: null });
        break;
      case 'use-askpass':
        if (val !== null) t.localCommands.push(val);
        break;
      case 'e':
      case 'execute':
        // `-e robots=off` is the everyday one; any other wgetrc command can change what wget runs.
        if (val === null || !/^robots\s*=\s*(off|on)$/i.test(val)) t.unusual.push(name);
        if (val !== null && /use_askpass/i.test(val)) t.localCommands.push(val);
        break;
      case 'h':
      case 'help':
      case 'V':
      case 'version':
        t.dryRun = true;
        break;
      default:
        break;
    }
    if (!WGET_SAFE.has(name) && !['O', 'output-document', 'P', 'directory-prefix', 'e', 'execute', 'h', 'help', 'V', 'version'].includes(name)) t.unusual.push(name);
  }, (w, v) => urls.push({ w, v }));
  for (const { w, v } of urls) t.endpoints.push(endpoint(ctx, w, v));
  if (post) t.method ??= 'POST';
  if (docOut !== null) t.outputs.push(docOut);
  else for (const { v } of urls) if (v !== null) t.outputs.push(prefix ? `${prefix}/${urlBasename(v)}` : urlBasename(v));
}

// ---------------------------------------------------------------------------------------------------------
// HTTPie / xh: `http [flags] [METHOD] URL [items]`

const HTTPIE_SPEC: Spec = {
  short: 'aAospP',
  long: new Set([
    'auth', 'auth-type', 'output', 'session', 'session-read-only', 'verify', 'cert', 'cert-key', 'cert-key-pass',
    'proxy', 'timeout', 'pretty', 'style', 'print', 'format-options', 'max-redirects', 'max-headers',
    'default-scheme', 'response-charset', 'response-mime', 'boundary', 'raw', 'history-print', 'ssl', 'ciphers',
    'bearer', 'resolve', 'interface',
  ]),
};

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

function parseHttpie(t: NetTarget, args: readonly Word[], ctx: RuleContext, prog: string): void {
  const operands: { w: Word; v: string | null }[] = [];
  let offline = false;
  scan(args, HTTPIE_SPEC, (o) => {
    if (o.name === 'offline') offline = true;
    else if (o.name === 'raw' && o.value !== null) t.uploads.push({ kind: 'data', value: o.value, dynamic: o.dynamic });
    else if (o.name === 'o' || o.name === 'output') { if (o.value !== null) t.outputs.push(o.value); }
    else if (o.name === 'd' || o.name === 'download') t.outputs.push('(download)');
    else if (o.name === 'help' || o.name === 'version') t.dryRun = true;
  }, (w, v) => operands.push({ w, v }));
  if (offline) t.dryRun = true;
  let i = 0;
  const m = operands[0]?.v;
  if (m && HTTP_METHODS.has(m)) {
    t.method = m;
    i = 1;
  }
  const u = operands[i];
  if (u) {
    let text = u.v;
    // `:3000/x` and `:/x` are localhost shorthands.
    if (text !== null && text.startsWith(':')) text = `localhost${text.length > 1 && /^:\d/.test(text) ? text : text.slice(1)}`;
    if (text !== null && prog.endsWith('s') && !/^[a-z]+:\/\//i.test(text)) text = `https://${text}`;
    t.endpoints.push(endpoint(ctx, u.w, text));
  }
  let hasData = false;
  for (const item of operands.slice(i + 1)) {
    const v = item.v ?? item.w.value;
    const dyn = item.v === null;
    // `field=@file`, `field:=@file`, `field@file` (file upload), `field=value`, `field:=json`.
    const fileM = /^[^=:@]*(?::=@|=@|@)(.+)$/.exec(v);
    if (/^[^=:]*==/.test(v)) continue; // query parameter
    if (fileM && !/^[^=:@]*:[^=]/.test(v)) {
      t.uploads.push({ kind: 'file', value: fileM[1]!, word: item.w, dynamic: dyn });
      hasData = true;
    } else if (/^[^=:]*:?=/.test(v)) {
      t.uploads.push({ kind: 'data', value: v, word: item.w, dynamic: dyn });
      hasData = true;
    }
  }
  if (hasData) t.method ??= 'POST';
  if (t.method && t.method !== 'GET' && t.method !== 'HEAD') t.unusual.push('method');
}

// ---------------------------------------------------------------------------------------------------------
// netcat family

const NC_SPEC: Spec = {
  short: 'cegGiImMoOpPqsTVwxX',
  long: new Set([
    'exec', 'sh-exec', 'lua-exec', 'output', 'hex-dump', 'proxy', 'proxy-type', 'proxy-auth', 'proxy-dns', 'max-conns',
    'allow', 'allowfile', 'deny', 'denyfile', 'ssl-cert', 'ssl-key', 'ssl-trustfile', 'ssl-ciphers', 'ssl-servername',
    'ssl-alpn', 'source-port', 'source', 'wait', 'idle-timeout', 'append-output', 'delay', 'i', 'w',
  ]),
};

function parseNetcat(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const operands: { w: Word; v: string | null }[] = [];
  scan(args, NC_SPEC, (o) => {
    switch (o.name) {
      case 'l':
      case 'listen':
        t.listens = true;
        break;
      case 'e':
      case 'c':
      case 'exec':
      case 'sh-exec':
      case 'lua-exec':
        t.exec = o.value ?? '';
        break;
      case 'h':
      case 'help':
      case 'version':
        t.dryRun = true;
        break;
      default:
        break;
    }
  }, (w, v) => operands.push({ w, v }));
  if (t.listens) {
    if (operands[0] && operands[0].v !== null && !/^\d+$/.test(operands[0].v)) t.endpoints.push(hostEndpoint(ctx, operands[0].w, operands[0].v));
    return;
  }
  const h = operands[0];
  if (h) t.endpoints.push(hostEndpoint(ctx, h.w, h.v));
}

// ---------------------------------------------------------------------------------------------------------
// socat: two addresses

const SOCAT_NET = /^(tcp|tcp4|tcp6|tcp-connect|tcp4-connect|tcp6-connect|udp|udp4|udp6|udp-connect|udp4-connect|udp6-connect|udp-sendto|udp4-sendto|udp6-sendto|ssl|openssl|openssl-connect|sctp|sctp-connect|sctp4-connect|sctp6-connect|dccp-connect|socks|socks4|socks4a|socks5|socks5-connect|proxy|proxy-connect|vsock-connect)$/;
const SOCAT_LISTEN = /-(listen|l|recvfrom|recv)$|^(udp-recv|udp-recvfrom|udp4-recvfrom|udp6-recvfrom|ip-recv|ip-recvfrom)$/;
const SOCAT_FILE = /^(file|open|gopen|create|readline)$/;

function parseSocat(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const addrs: { w: Word; v: string | null }[] = [];
  let unidirectional = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = lit(w);
    const s = v ?? w.value;
    if (s.length > 1 && s.startsWith('-')) {
      if (/^-(b|T|t|L|W|lf|lp|S|r|R)$/.test(s)) i++;
      else if (s === '-u') unidirectional = true;
      else if (s === '-h' || s === '-V' || s === '-hh' || s === '-hhh') t.dryRun = true;
      continue;
    }
    addrs.push({ w, v });
  }
  let netSide = false;
  const files: Upload[] = [];
  let stdioSide = false;
  for (const [idx, a] of addrs.entries()) {
    if (a.v === null) {
      t.endpoints.push({ text: null, host: null, info: null, word: a.w });
      continue;
    }
    const colon = a.v.indexOf(':');
    const type = (colon >= 0 ? a.v.slice(0, colon) : a.v.split(',')[0]!).toLowerCase();
    const rest = colon >= 0 ? a.v.slice(colon + 1) : '';
    if (type === 'exec' || type === 'system') {
      t.exec = rest.split(',')[0] ?? rest;
    } else if (SOCAT_LISTEN.test(type)) {
      t.listens = true;
      netSide = true;
    } else if (SOCAT_NET.test(type)) {
      netSide = true;
      const host = rest.split(/[:,]/)[0] ?? '';
      t.endpoints.push(hostEndpoint(ctx, a.w, host === '' ? null : host));
    } else if (SOCAT_FILE.test(type)) {
      if (!unidirectional || idx === 0) files.push({ kind: 'file', value: rest.split(',')[0] ?? rest, word: a.w, dynamic: false });
    } else if (type === '-' || type === 'stdio' || type === 'stdin' || type === 'stdout' || type === 'fd' || type === 'readline') {
      stdioSide = true;
    } else if (colon < 0 && (a.v.startsWith('/') || a.v.startsWith('.') || a.v.startsWith('~'))) {
      files.push({ kind: 'file', value: a.v.split(',')[0]!, word: a.w, dynamic: false });
    }
  }
  if (netSide) {
    t.uploads.push(...files);
    if (stdioSide) t.uploads.push({ kind: 'stdin', value: '-', dynamic: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// ssh, scp, rsync, sftp and other sessions

const SSH_SPEC: Spec = { short: 'BbcDEeFIiJLlmOopQRSWw', long: new Set() };
const SSH_COMMAND_OPTS = /^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|proxyusefdpass|match)\s*[= ]\s*(.*)$/i;

function sshOption(t: NetTarget, value: string | null): void {
  if (value === null) return;
  const m = SSH_COMMAND_OPTS.exec(value.trim());
  if (m && m[1]!.toLowerCase() !== 'permitlocalcommand' && m[1]!.toLowerCase() !== 'proxyusefdpass') t.localCommands.push(m[2]!);
}

function parseSsh(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const operands: { w: Word; v: string | null }[] = [];
  let info = false;
  scan(args, SSH_SPEC, (o) => {
    if (o.name === 'o') sshOption(t, o.value);
    else if (o.name === 'L' || o.name === 'D') t.listens = true;
    else if (o.name === 'V' || o.name === 'G' || o.name === 'Q') info = true;
    else if (o.name === 'J' && o.value !== null) {
      for (const j of o.value.split(',')) t.endpoints.push(hostEndpoint(ctx, o.word, parseRemoteHost(j, { bareHost: true })));
    }
  }, (w, v) => operands.push({ w, v }));
  if (info) {
    t.dryRun = true;
    return;
  }
  const dest = operands[0];
  if (!dest) return;
  t.session = true;
  t.endpoints.unshift(hostEndpoint(ctx, dest.w, dest.v === null ? null : parseRemoteHost(dest.v, { bareHost: true }) ?? dest.v));
}

const SCP_SPEC: Spec = { short: 'cFiJlPoSDX', long: new Set() };

/** Sources and destination of a copy whose operands may be remote (`host:path`). */
function copyOperands(t: NetTarget, operands: { w: Word; v: string | null }[], ctx: RuleContext): void {
  if (operands.length < 2) return;
  const dest = operands[operands.length - 1]!;
  const sources = operands.slice(0, -1);
  const destHost = dest.v === null ? undefined : parseRemoteHost(dest.v);
  if (dest.v === null) {
    t.endpoints.push({ text: null, host: null, info: null, word: dest.w });
  } else if (destHost) {
    t.endpoints.push(hostEndpoint(ctx, dest.w, destHost));
  }
  for (const s of sources) {
    const h = s.v === null ? null : parseRemoteHost(s.v);
    if (h) {
      t.endpoints.push(hostEndpoint(ctx, s.w, h));
      continue;
    }
    // A local source copied to a remote (or unknown) destination is an upload.
    if (destHost !== null) t.uploads.push({ kind: 'file', value: s.v ?? s.w.value, word: s.w, dynamic: s.v === null });
  }
}

function parseScp(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const operands: { w: Word; v: string | null }[] = [];
  scan(args, SCP_SPEC, (o) => {
    if (o.name === 'o') sshOption(t, o.value);
    else if (o.name === 'S' && o.value !== null) t.localCommands.push(o.value);
    else if (o.name === 'h' || o.name === 'help' || o.name === 'version') t.dryRun = true;
  }, (w, v) => operands.push({ w, v }));
  copyOperands(t, operands, ctx);
}

const RSYNC_SPEC: Spec = {
  short: 'eBfTM',
  long: new Set([
    'rsh', 'rsync-path', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'filter', 'port',
    'password-file', 'log-file', 'log-file-format', 'bwlimit', 'timeout', 'contimeout', 'temp-dir', 'compare-dest',
    'copy-dest', 'link-dest', 'backup-dir', 'suffix', 'chmod', 'chown', 'usermap', 'groupmap', 'max-size', 'min-size',
    'partial-dir', 'out-format', 'info', 'debug', 'remote-option', 'sockopts', 'outbuf', 'iconv', 'checksum-choice',
    'compress-choice', 'compress-level', 'skip-compress', 'modify-window', 'block-size', 'max-delete', 'address',
    'write-batch', 'read-batch', 'only-write-batch', 'stop-after', 'stop-at', 'protocol', 'checksum-seed',
  ]),
};

function parseRsync(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const operands: { w: Word; v: string | null }[] = [];
  scan(args, RSYNC_SPEC, (o) => {
    if ((o.name === 'e' || o.name === 'rsh') && o.value !== null) {
      // `-e 'ssh -p 2222'` is ordinary; anything else names the program rsync runs to connect.
      const prog = basename(o.value.trim().split(/\s+/)[0] ?? '');
      if (prog !== 'ssh' || /[;&|`$()<>]/.test(o.value)) t.localCommands.push(o.value);
      for (const m of o.value.matchAll(/-o\s*(\S+)/g)) sshOption(t, m[1]!);
    } else if (o.name === 'rsync-path' && o.value !== null) {
      t.localCommands.push(o.value);
    } else if (o.name === 'n' || o.name === 'dry-run' || o.name === 'list-only' || o.name === 'help' || o.name === 'version') {
      t.dryRun = true;
    }
  }, (w, v) => operands.push({ w, v }));
  copyOperands(t, operands, ctx);
}

function parseOpenssl(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const sub = lit(args[0]);
  if (sub === 's_client') {
    for (let i = 1; i < args.length; i++) {
      const v = lit(args[i]);
      if ((v === '-connect' || v === '-host') && args[i + 1]) {
        const hv = lit(args[i + 1]);
        t.endpoints.push(hostEndpoint(ctx, args[i + 1], hv === null ? null : hv.replace(/:\d+$/, '')));
      }
    }
    if (t.endpoints.length === 0) t.endpoints.push(hostEndpoint(ctx, undefined, 'localhost'));
  } else if (sub === 's_server') {
    t.listens = true;
  } else {
    t.dryRun = true; // openssl's other subcommands do not touch the network
  }
}

function parseSession(t: NetTarget, args: readonly Word[], ctx: RuleContext): void {
  const operands: { w: Word; v: string | null }[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = lit(w);
    const s = v ?? w.value;
    if (s.startsWith('-') && s.length > 1) {
      if (t.tool === 'sftp' && /^-[bFiJlPoSDRsB]$/.test(s)) {
        if (s === '-o') sshOption(t, lit(args[i + 1]));
        if (s === '-S' && args[i + 1]) t.localCommands.push(lit(args[i + 1]) ?? args[i + 1]!.value);
        i++;
      } else if (/^-[lpPeEuUwWsSoOnNaA]$/.test(s) && t.tool !== 'sftp' && t.tool !== 'telnet') {
        i++;
      }
      continue;
    }
    operands.push({ w, v });
  }
  const h = operands[0];
  if (!h) {
    t.session = true;
    return;
  }
  t.session = true;
  const host = h.v === null ? null : parseRemoteHost(h.v, { bareHost: true }) ?? h.v;
  t.endpoints.push(hostEndpoint(ctx, h.w, host));
}

// ---------------------------------------------------------------------------------------------------------
// Endpoint judgements shared by the rules.

/** The endpoint is this machine or a host the policy allows. */
export function isTrustedEndpoint(e: Endpoint): boolean {
  if (!e.info) return false;
  return e.info.classes.has('local') || e.info.classes.has('allowed');
}

/** Every endpoint is local or allowed (and there is at least one). */
export function allTrusted(t: NetTarget): boolean {
  return t.endpoints.length > 0 && t.endpoints.every(isTrustedEndpoint);
}

/** A short name for reasons: the first host, or "a host only known at run time". */
export function describeHost(t: NetTarget): string {
  const e = t.endpoints.find((x) => !isTrustedEndpoint(x)) ?? t.endpoints[0];
  if (!e) return 'a remote host';
  return e.host ?? (e.text !== null ? e.text : 'a host only known at run time');
}
