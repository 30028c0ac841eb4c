// URL classification: what kind of place a URL points to.

import { domainToASCII } from 'node:url';
import { AsimovError } from '../core/errors.ts';

export type UrlClass =
  | 'local'            // localhost, 127.0.0.0/8, ::1, *.localhost
  | 'private-network'  // 10/8, 172.16/12, 192.168/16, link-local, .internal, .local
  | 'metadata'         // cloud metadata endpoints (169.254.169.254, metadata.google.internal, fd00:ec2::254, 100.100.100.200)
  | 'paste'            // paste and file-drop services (pastebin.com, transfer.sh, 0x0.st, termbin, file.io, webhook.site, requestbin, ngrok…)
  | 'raw-script'       // raw script download (raw.githubusercontent.com/…/*.sh, gist raw, *.sh/*.ps1/*.py URLs, get.* install scripts)
  | 'docs'             // well-known documentation and package registry sites (developer.mozilla.org, docs.*, npmjs.com, pypi.org, github.com…)
  | 'allowed'          // matched by the policy's allowed domains
  | 'query-data'       // long or secret-looking data in the query string, to a host that is not allowed/docs
  | 'ip-literal'       // host is a bare IP address
  | 'non-http'         // scheme other than http/https (file:, ftp:, gopher:, dict:, …)
  | 'invalid'          // not parseable
  | 'unknown';         // an ordinary public host with nothing special

export interface UrlInfo {
  input: string;
  /** Lower-cased host without port, or null when invalid. */
  host: string | null;
  scheme: string | null;
  classes: ReadonlySet<UrlClass>;
}

/*
 * Choices made here:
 * - Parsing is WHATWG `URL`'s, the same as Node's fetch: it lower-cases, converts IDN to punycode, and
 *   normalizes odd IPv4 forms (2130706433, 0x7f.1, 0177.0.0.1, 127.1) to dotted decimal, so the host
 *   tests below only ever see canonical forms. `host` is returned without IPv6 brackets or a trailing dot;
 *   it is null when the URL has no host at all (`file:///x`, `data:`) as well as when it is invalid.
 * - A bare `host[:port][/path]` is read as curl reads it: `http://` is prepended.
 * - `unknown` means "an ordinary public http(s) host": it is absent when the host is local, private,
 *   metadata, paste, docs or allowed. `raw-script`, `query-data` and `ip-literal` describe the URL and can
 *   accompany `unknown`.
 * - Wildcard DNS services that embed an address in the name (`169.254.169.254.nip.io`, sslip.io) are
 *   classified by the embedded address too.
 * - `docs.*` and `*.readthedocs.io` are `docs`, but since anyone can register such a name they do not exempt
 *   a URL from `query-data`; only the explicit documentation list, allowed domains and local hosts do.
 * - Query data: a query over 100 characters, a base64-like run of 40+ characters mixing upper case, lower
 *   case and digits (pure hex such as commit hashes and lower-case slugs do not count), or a token in a
 *   known secret format anywhere after the host.
 */

export interface UrlClassifierOptions {
  /** Hosts the policy allows: exact names, or `*.suffix` for any subdomain of suffix. */
  allowedDomains?: readonly string[];
}

export type UrlClassifier = (u: string) => UrlInfo;

const MAX_URL_CHARS = 16_384;
const MAX_CACHE = 1024;

const LOCAL_NAMES = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback'];
/** Public names that resolve to 127.0.0.1, with all their subdomains. */
const LOCAL_SUFFIXES = ['localhost', 'localtest.me', 'lvh.me'];
const PRIVATE_SUFFIXES = ['internal', 'local', 'lan', 'home.arpa', 'localdomain', 'intranet', 'corp'];
const METADATA_HOSTS = new Set([
  '169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200', 'fd00:ec2::254',
  'metadata.google.internal', 'metadata', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);
const EMBEDDED_IP_SUFFIXES = ['nip.io', 'sslip.io', 'xip.io'];

/** Paste, file-drop, request-capture and tunnel services: where exfiltrated data goes. Host and subdomains. */
export const PASTE_HOSTS: readonly string[] = [
  'pastebin.com', 'paste.ee', 'hastebin.com', 'hastebin.skyra.pw', 'ghostbin.co', 'ghostbin.com', 'rentry.co',
  'rentry.org', 'dpaste.com', 'dpaste.org', 'termbin.com', 'ix.io', 'sprunge.us', '0x0.st', 'transfer.sh',
  'file.io', 'tmpfiles.org', 'catbox.moe', 'litterbox.catbox.moe', 'bashupload.com', 'temp.sh', 'oshi.at',
  'gofile.io', 'anonfiles.com', 'webhook.site', 'requestbin.com', 'requestbin.net', 'pipedream.net',
  'beeceptor.com', 'hookbin.com', 'ngrok.io', 'ngrok.app', 'ngrok-free.app', 'ngrok.dev', 'ngrok-free.dev',
  'trycloudflare.com', 'serveo.net', 'serveousercontent.com', 'loca.lt', 'localtunnel.me', 'interact.sh',
  'burpcollaborator.net', 'oastify.com', 'canarytokens.com', 'canarytokens.org', 'paste.rs', 'privatebin.net',
  'justpaste.it', 'controlc.com', 'pastes.io', 'pastie.org', 'mystb.in', 'paste.mozilla.org', 'uguu.se',
  'pixeldrain.com', 'filebin.net', 'hooks.slack.com', 'pastebin.pl', 'ptpb.pw', 'clbin.com',
];

/** Documentation and package registries; exact hosts and their subdomains. */
export const DOCS_HOSTS: readonly string[] = [
  'developer.mozilla.org', 'docs.python.org', 'python.org', 'nodejs.org', 'npmjs.com', 'registry.npmjs.org',
  'pypi.org', 'files.pythonhosted.org', 'crates.io', 'docs.rs', 'pkg.go.dev', 'go.dev', 'golang.org',
  'rust-lang.org', 'gitlab.com', 'stackoverflow.com', 'stackexchange.com', 'serverfault.com', 'superuser.com',
  'askubuntu.com', 'readthedocs.org', 'learn.microsoft.com', 'man7.org', 'cppreference.com',
  'typescriptlang.org', 'react.dev', 'vuejs.org', 'angular.dev', 'kotlinlang.org', 'rubygems.org',
  'ruby-doc.org', 'php.net', 'perldoc.perl.org', 'hexdocs.pm', 'hex.pm', 'pub.dev', 'nuget.org',
  'search.maven.org', 'mvnrepository.com', 'packagist.org', 'cran.r-project.org', 'wikipedia.org', 'w3.org',
  'whatwg.org', 'ietf.org', 'rfc-editor.org', 'json-schema.org', 'jsr.io', 'kernel.org', 'archlinux.org',
  'manpages.debian.org', 'manpages.ubuntu.com', 'peps.python.org', 'mdn.io',
];
/** Hosts that are docs only exactly (their subdomains serve raw content, gists, APIs). */
const DOCS_EXACT = new Set(['github.com', 'www.github.com']);

const RAW_HOSTS = ['raw.githubusercontent.com', 'gist.githubusercontent.com', 'raw.github.com'];
const SCRIPT_EXT = /\.(sh|bash|zsh|ksh|fish|ps1|psm1|py|pl|rb|bat|cmd|vbs)$/i;
const INSTALLER_NAMES = new Set(['install', 'installer', 'install.sh', 'install.ps1', 'get']);

/** Known secret formats (cloud keys, VCS tokens, API keys, JWTs, PEM blocks). */
const SECRET_TOKEN = new RegExp(
  [
    '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b',
    '\\bgh[pousr]_[A-Za-z0-9]{30,}',
    '\\bgithub_pat_[A-Za-z0-9_]{22,}',
    '\\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}',
    '\\bxox[abprs]-[A-Za-z0-9-]{10,}',
    '\\bglpat-[A-Za-z0-9_-]{20,}',
    '\\bAIza[0-9A-Za-z_-]{35}',
    '\\bnpm_[A-Za-z0-9]{36}',
    '\\beyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}',
    '-----BEGIN[ A-Z]*PRIVATE KEY',
  ].join('|'),
);
const BASE64_RUN = /[A-Za-z0-9+/=_-]{40,}/g;

export function createUrlClassifier(opts: UrlClassifierOptions = {}): UrlClassifier {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const raw of opts.allowedDomains ?? []) {
    const d = normalizeDomainPattern(raw);
    if (d.startsWith('*.')) suffixes.push(d.slice(2));
    else exact.add(d);
  }
  const isAllowed = (host: string) => exact.has(host) || suffixes.some((s) => host.endsWith('.' + s));

  const cache = new Map<string, UrlInfo>();
  return function classifyUrl(u: string): UrlInfo {
    if (typeof u !== 'string') return invalid(String(u));
    const hit = cache.get(u);
    if (hit) return hit;
    const info = classify(u, isAllowed);
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(u, info);
    return info;
  };
}

function invalid(input: string): UrlInfo {
  return { input, host: null, scheme: null, classes: new Set<UrlClass>(['invalid']) };
}

/** Parse as a fetcher would: a full URL, or a bare `host[:port][/path]` as curl reads it. */
export function parseUrlLoose(u: string): URL | null {
  const s = u.trim();
  if (s === '' || s.length > MAX_URL_CHARS) return null;
  let text: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) text = s;
  else if (/^(?:file|data|javascript|vbscript|mailto|about|blob|jar|view-source|gopher|dict|ldap|tftp|http|https|ftp|ws|wss):/i.test(s)) text = s;
  else if (s.startsWith('//')) text = 'http:' + s;
  else text = 'http://' + s;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function classify(input: string, isAllowed: (h: string) => boolean): UrlInfo {
  const url = parseUrlLoose(input);
  if (!url) return invalid(input);
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  let host: string | null = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') host = null;

  const classes = new Set<UrlClass>();
  const http = scheme === 'http' || scheme === 'https';
  if (!http) classes.add('non-http');
  if ((scheme === 'http' || scheme === 'https') && host === null) return invalid(input);

  const path = url.pathname;
  let explicitDocs = false;
  if (host !== null) {
    for (const c of hostClasses(host)) classes.add(c);
    if (isAllowed(host)) classes.add('allowed');
    if (isPasteUrl(host, path)) classes.add('paste');
    explicitDocs = isExplicitDocs(host, path);
    if (explicitDocs || isWildcardDocs(host)) classes.add('docs');
    if (isRawScript(host, path)) classes.add('raw-script');
  }
  if (
    !classes.has('allowed') &&
    !explicitDocs &&
    !classes.has('local') &&
    carriesData(url)
  ) {
    classes.add('query-data');
  }
  if (
    http &&
    !['local', 'private-network', 'metadata', 'paste', 'docs', 'allowed'].some((c) => classes.has(c as UrlClass))
  ) {
    classes.add('unknown');
  }
  return { input, host, scheme, classes };
}

function matchesSuffix(host: string, list: readonly string[]): boolean {
  return list.some((d) => host === d || host.endsWith('.' + d));
}

/** Classes that follow from the host alone: local, private, metadata, ip-literal. */
function hostClasses(host: string): UrlClass[] {
  const out: UrlClass[] = [];
  if (METADATA_HOSTS.has(host)) out.push('metadata');
  const v4 = parseIPv4(host);
  if (v4 !== null) {
    out.push('ip-literal', ...ipv4Classes(v4));
    return out;
  }
  if (host.includes(':')) {
    out.push('ip-literal', ...ipv6Classes(host));
    return out;
  }
  if (LOCAL_NAMES.includes(host) || matchesSuffix(host, LOCAL_SUFFIXES)) out.push('local');
  else if (!host.includes('.') || matchesSuffix(host, PRIVATE_SUFFIXES)) out.push('private-network');
  // 169.254.169.254.nip.io resolves to 169.254.169.254; also 10-0-0-1.sslip.io.
  for (const suffix of EMBEDDED_IP_SUFFIXES) {
    if (!host.endsWith('.' + suffix)) continue;
    const m = /(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})$/.exec(host.slice(0, -suffix.length - 1));
    const ip = m ? parseIPv4(`${m[1]}.${m[2]}.${m[3]}.${m[4]}`) : null;
    if (ip !== null) {
      const dotted = ipToString(ip);
      if (METADATA_HOSTS.has(dotted)) out.push('metadata');
      out.push(...ipv4Classes(ip));
    }
  }
  return out;
}

function parseIPv4(h: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((n) => n > 255)) return null;
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
}

function ipToString(ip: number): string {
  return [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
}

function inV4(ip: number, base: string, bits: number): boolean {
  const b = parseIPv4(base)!;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((b & mask) >>> 0);
}

function ipv4Classes(ip: number): UrlClass[] {
  const out: UrlClass[] = [];
  if (METADATA_HOSTS.has(ipToString(ip))) out.push('metadata');
  // 0.0.0.0/8 reaches the local machine on Linux and macOS.
  if (inV4(ip, '127.0.0.0', 8) || inV4(ip, '0.0.0.0', 8)) out.push('local');
  else if (
    inV4(ip, '10.0.0.0', 8) ||
    inV4(ip, '172.16.0.0', 12) ||
    inV4(ip, '192.168.0.0', 16) ||
    inV4(ip, '169.254.0.0', 16) ||
    inV4(ip, '100.64.0.0', 10)
  ) {
    out.push('private-network');
  }
  return out;
}

/** Expand an IPv6 literal (as WHATWG serializes it) to 8 16-bit groups, or null. */
function parseIPv6(h: string): number[] | null {
  let s = h;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const ip = parseIPv4(v4[1]!);
    if (ip === null) return null;
    s = s.slice(0, -v4[1]!.length) + `${(ip >>> 16).toString(16)}:${(ip & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const part = (x: string | undefined) => (x ? x.split(':').map((g) => parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  if ([...head, ...tail].some((n) => Number.isNaN(n) || n < 0 || n > 0xffff)) return null;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

function ipv6Classes(h: string): UrlClass[] {
  const g = parseIPv6(h);
  if (!g) return [];
  const out: UrlClass[] = [];
  const isZero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (isZero(0, 7) && (g[7] === 1 || g[7] === 0)) return ['local']; // ::1 and ::
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) embed an IPv4.
  if ((isZero(0, 5) && (g[5] === 0xffff || g[5] === 0)) || (g[0] === 0x64 && g[1] === 0xff9b && isZero(2, 6))) {
    const ip = ((g[6]! << 16) >>> 0) + g[7]!;
    return ipv4Classes(ip >>> 0);
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80) out.push('private-network');
  return out;
}

function isPasteUrl(host: string, path: string): boolean {
  if (matchesSuffix(host, PASTE_HOSTS)) return true;
  // interactsh / OAST collaborator domains: <id>.oast.<tld>
  if (/(^|\.)oast\.[a-z]+$/.test(host)) return true;
  if (matchesSuffix(host, ['discord.com', 'discordapp.com']) && /^\/api(\/v\d+)?\/webhooks\//i.test(path)) return true;
  if (host === 'api.telegram.org' && /^\/bot/i.test(path)) return true;
  if (matchesSuffix(host, ['toptal.com']) && /^\/developers\/hastebin/i.test(path)) return true;
  return false;
}

function isExplicitDocs(host: string, path: string): boolean {
  if (DOCS_EXACT.has(host)) return !/^\/[^/]+\/[^/]+\/raw\//.test(path);
  if (host === 'gitlab.com' || host.endsWith('.gitlab.com')) return !path.includes('/-/raw/');
  return matchesSuffix(host, DOCS_HOSTS);
}

function isWildcardDocs(host: string): boolean {
  return host.startsWith('docs.') || host.endsWith('.readthedocs.io');
}

function isRawScript(host: string, path: string): boolean {
  if (RAW_HOSTS.includes(host)) return true;
  if ((host === 'gist.github.com' || DOCS_EXACT.has(host) || host === 'bitbucket.org') && /\/raw\//.test(path)) return true;
  if (host === 'gitlab.com' && path.includes('/-/raw/')) return true;
  if (host.startsWith('get.') || host.startsWith('install.')) return true;
  if (SCRIPT_EXT.test(path)) return true;
  const last = path.split('/').filter(Boolean).pop()?.toLowerCase();
  return last !== undefined && INSTALLER_NAMES.has(last);
}

function carriesData(url: URL): boolean {
  const query = url.search.replace(/^\?/, '');
  if (query.length > 100) return true;
  const tail = safeDecode(url.pathname + url.search);
  if (SECRET_TOKEN.test(tail)) return true;
  for (const run of safeDecode(query).match(BASE64_RUN) ?? []) {
    if (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run)) return true;
  }
  return false;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** A policy's allowed-domain entry in canonical form: lower-case, punycode, no trailing dot, `*.` kept. */
export function normalizeDomainPattern(raw: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new AsimovError('bad_input', `allowed domain must be a non-empty host name, got ${JSON.stringify(raw)}`);
  }
  let d = raw.trim().toLowerCase();
  const wildcard = d.startsWith('*.');
  if (wildcard) d = d.slice(2);
  if (d.endsWith('.')) d = d.slice(0, -1);
  const ascii = domainToASCII(d);
  if (ascii === '' || /[/:@*\s]/.test(d)) {
    throw new AsimovError(
      'bad_input',
      `allowed domain ${JSON.stringify(raw)} is not a host name (use "example.com" or "*.example.com", no scheme, port or path)`,
    );
  }
  return wildcard ? `*.${ascii}` : ascii;
}

/**
 * The remote host of an scp/rsync/sftp/ssh argument, or null when the argument is a local path.
 * Forms: `[user@]host:path`, `[user@][v6addr]:path`, `host::module` (rsync daemon), `scheme://[user@]host[:port]/…`.
 * With `bareHost` (ssh's destination argument) a plain `[user@]host` is a host too.
 */
export function parseRemoteHost(arg: string, opts: { bareHost?: boolean } = {}): string | null {
  if (typeof arg !== 'string') return null;
  const s = arg.trim();
  if (s === '' || s.startsWith('-')) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    try {
      const h = new URL(s).hostname.toLowerCase();
      return cleanHost(h);
    } catch {
      return null;
    }
  }
  if (s.startsWith('/') || s.startsWith('./') || s.startsWith('../') || s.startsWith('~')) return null;
  // A user name holds no ':', '[' or '/', so the '@' that ends it is the last one before the first of those.
  let end = s.length;
  for (const ch of [':', '[', '/']) {
    const i = s.indexOf(ch);
    if (i !== -1 && i < end) end = i;
  }
  const at = end === 0 ? -1 : s.lastIndexOf('@', end - 1);
  const afterUser = at === -1 ? s : s.slice(at + 1);
  let host: string;
  let rest: string;
  if (afterUser.startsWith('[')) {
    const close = afterUser.indexOf(']');
    if (close === -1) return null;
    host = afterUser.slice(1, close);
    rest = afterUser.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return null;
    if (rest === '' && !opts.bareHost) return null;
  } else {
    const colon = afterUser.indexOf(':');
    const slash = afterUser.indexOf('/');
    if (colon === -1) {
      if (!opts.bareHost || slash !== -1) return null;
      host = afterUser;
    } else {
      if (slash !== -1 && slash < colon) return null;
      host = afterUser.slice(0, colon);
      // `C:\dir` and `C:/dir` are Windows drive paths, not a host named C.
      if (host.length === 1 && /^[\\/]/.test(afterUser.slice(colon + 1))) return null;
    }
  }
  if (!/^[A-Za-z0-9._-]+$/.test(host) && !/^[0-9A-Fa-f:.]+$/.test(host)) return null;
  return cleanHost(host.toLowerCase());
}

function cleanHost(h: string): string | null {
  let host = h;
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host === '' ? null : host;
}
