// The command line of `asimov mcp proxy`, parsed in one place: by the command itself, and by whatever reads
// client configurations and needs the upstream behind a proxy entry (`asimov mcp scan`, which pins what the
// proxy pins).

import { AsimovError } from '../../core/errors.ts';
import { DEFAULT_TIMEOUT_MS } from './upstream.ts';

export interface ProxyArgs {
  name?: string;
  timeoutMs: number;
  cwd?: string;
  url?: string;
  sse: boolean;
  headers: Record<string, string>;
  command?: string[];
  /** `--passthrough`: relay every message unchecked and record nothing (said loudly at start). */
  passthrough: boolean;
}

/**
 * `[options] [--] <command> [args…]` or `[options] --url URL [--sse] [--header 'K: V']…`. The first word that
 * is not an option starts the upstream's command. Throws AsimovError('usage') with what is wrong.
 */
export function parseProxyArgs(argv: string[]): ProxyArgs | 'help' {
  const out: ProxyArgs = { timeoutMs: DEFAULT_TIMEOUT_MS, sse: false, headers: {}, passthrough: false };
  const value = (i: number, opt: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v === '--') throw usage(`${opt} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.command = argv.slice(i + 1);
      if (out.command.length === 0) throw usage('no command after --');
      break;
    }
    switch (a) {
      case '-h':
      case '--help':
        return 'help';
      case '--name': {
        const n = value(i++, a);
        if (!/^[A-Za-z0-9_-]+$/.test(n) || n.includes('__')) throw usage(`--name must be letters, digits, - and _ (no __), not '${n}'`);
        out.name = n;
        break;
      }
      case '--timeout-ms': {
        const v = value(i++, a);
        const n = Number(v);
        if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n <= 0) throw usage(`--timeout-ms must be a positive whole number of milliseconds, not '${v}'`);
        out.timeoutMs = n;
        break;
      }
      case '--cwd':
        out.cwd = value(i++, a);
        break;
      case '--url': {
        const u = value(i++, a);
        let parsed: URL;
        try {
          parsed = new URL(u);
        } catch {
          throw usage(`--url is not a URL: '${u}'`);
        }
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw usage(`--url must be http:// or https://, not '${u}'`);
        out.url = u;
        break;
      }
      case '--sse':
        out.sse = true;
        break;
      case '--passthrough':
        out.passthrough = true;
        break;
      case '--header': {
        const h = value(i++, a);
        const header = parseHeaderOption(h);
        if (!header) throw usage(`--header must look like 'Name: value', not '${h}'`);
        out.headers[header[0]] = header[1];
        break;
      }
      default:
        if (a.startsWith('-')) throw usage(`unknown option ${a}`);
        // The first word that is not an option starts the server's command, as with env or sudo: `--` is
        // optional, for launchers that consume it themselves (the MCP Inspector does).
        out.command = argv.slice(i);
        break;
    }
    if (out.command !== undefined) break;
  }
  if (out.url !== undefined && out.command !== undefined) throw usage('give either --url or a command after --, not both');
  if (out.url === undefined && out.command === undefined) throw usage('no upstream given: add -- <command> [args…], or --url <URL>');
  if (out.url === undefined && (out.sse || Object.keys(out.headers).length > 0)) throw usage('--sse and --header apply to --url only');
  return out;
}

/** `--header 'Name: value'` as [name, value]: a name HTTP allows (an RFC 9110 token), else null. */
export function parseHeaderOption(h: string): [string, string] | null {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(h);
  return m ? [m[1]!, m[2]!] : null;
}

function usage(message: string): AsimovError {
  return new AsimovError('usage', message);
}
