// The bearer token a machine shows its team server (`audit:` in the user or managed policy): a literal,
// a file, or an environment variable, in that order of precedence within the file that named one.

import { readRegularFile } from '../core/read-regular.ts';
import type { AuditSettings } from '../policy/layers.ts';

/** A token is a line of text; a file much larger than one is not a token file. */
const MAX_TOKEN_FILE_BYTES = 4096;

export type TeamToken = { ok: true; token: string } | { ok: false; reason: string };

export function resolveTeamToken(a: AuditSettings, env: NodeJS.ProcessEnv = process.env): TeamToken {
  if (a.token !== undefined) return { ok: true, token: a.token.trim() };
  if (a.tokenFile !== undefined) {
    let text: string;
    try {
      const bytes = readRegularFile(a.tokenFile, MAX_TOKEN_FILE_BYTES);
      if (bytes === undefined) return { ok: false, reason: `the token file ${a.tokenFile} (audit.token_file in ${a.source}) does not exist` };
      text = bytes.toString('utf8').trim();
    } catch (e) {
      return { ok: false, reason: `the token file ${a.tokenFile} (audit.token_file in ${a.source}) cannot be read: ${(e as Error).message}` };
    }
    if (text === '') return { ok: false, reason: `the token file ${a.tokenFile} (audit.token_file in ${a.source}) is empty` };
    return { ok: true, token: text };
  }
  const v = env[a.tokenEnv]?.trim();
  if (v) return { ok: true, token: v };
  return { ok: false, reason: `no token for the team server: set ${a.tokenEnv}, or audit.token_file in ${a.source}` };
}
