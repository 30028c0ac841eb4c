// The hook command lines asimov installed in a client's config file, whatever the file's format. Every line
// `buildHookCommand` writes ends in the marker `# asimov-hook:<client>`, so `asimov doctor` need not know
// each client's layout: a JSON config is parsed and every string in it looked at; any other file (Kimi's
// config.toml, OpenCode's plugin asimov.js) holds the line as a double-quoted literal on one line, written
// with JSON's escapes (`tomlString` and `JSON.stringify`), which is read back the same way (or as TOML).

import { getNodeValue } from 'jsonc-parser';
import { stringValue } from './codex-trust.ts';
import { isAsimovHookCommand } from './hook-command.ts';
import { isBlank, parseJsonDocument } from './json-settings.ts';

/** A double-quoted literal with backslash escapes, on one line. */
const QUOTED = /"(?:[^"\\\r\n]|\\.)*"/g;

/**
 * asimov's command lines for `client` in a config file's text, in file order, each once. A JSON file that
 * does not parse throws AsimovError wire_settings_invalid (with line and column): the client cannot read
 * it either.
 */
export function asimovCommandsIn(text: string, file: string, client: string): string[] {
  const found = new Set<string>();
  if (/\.json$/i.test(file)) {
    if (isBlank(text)) return [];
    // Lenient on purpose: this reads what is there; whether the client accepts the file is wire's concern.
    const doc = parseJsonDocument(text, file, { comments: true, trailingCommas: true });
    walkStrings(getNodeValue(doc.root), (s) => {
      if (isAsimovHookCommand(s, client)) found.add(s);
    });
    return [...found];
  }
  for (const line of text.split(/\r?\n/)) {
    if (!line.includes(`asimov-hook:${client}`)) continue;
    for (const m of line.matchAll(QUOTED)) {
      let s: unknown;
      try {
        s = JSON.parse(m[0]);
      } catch {
        // A TOML basic string may use an escape JSON lacks (`\e`, `\U…`).
        s = stringValue(m[0]);
      }
      if (isAsimovHookCommand(s, client)) found.add(s as string);
    }
  }
  return [...found];
}

function walkStrings(v: unknown, visit: (s: string) => void): void {
  if (typeof v === 'string') visit(v);
  else if (Array.isArray(v)) for (const x of v) walkStrings(x, visit);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walkStrings(x, visit);
}
