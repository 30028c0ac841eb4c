// The check a team policy passes before it is published (the server) and before a fetched copy replaces the
// cached one (the client): the real parser, then the real layering as the one managed layer over the
// built-in pack, with custom rules' examples run. A team policy that failed here would make every client's
// policy fail to load, and a policy that fails to load denies every call.

import { AsimovError } from '../core/errors.ts';
import { runExample } from './examples.ts';
import { buildEffectivePolicy } from './layers.ts';
import { parsePolicyText } from './load.ts';
import { recommended } from './rules/index.ts';
import type { ParsedPolicy } from './schema.ts';
import { MAX_TEAM_GROUND_RULES_BYTES } from './team-cache.ts';

/** Where a team policy's problems are located when it has no file of its own (the server's copy). */
export const TEAM_POLICY_NAME = 'team-policy.yaml';

/**
 * Parses and layers a team policy; throws AsimovError with file, line and key when it is invalid. `audit:`
 * is refused: where a machine ships its records and whose policy it takes is the machine's own setting.
 */
export function checkTeamPolicy(text: string, file: string = TEAM_POLICY_NAME): ParsedPolicy {
  const parsed = parsePolicyText(text, file);
  if (parsed.doc.audit != null) {
    throw new AsimovError('policy_schema_error', 'a team policy cannot set audit: (where records go and whose policy applies is each machine\'s own user or managed policy)', parsed.locate(['audit'], 'key'));
  }
  buildEffectivePolicy({
    builtin: recommended,
    layers: [{ layer: 'managed', parsed }],
    projectRoot: '/nonexistent/project',
    home: '/nonexistent/home',
    isTrusted: () => true,
    exampleRunner: runExample,
  });
  return parsed;
}

/** Ground rules are UTF-8 text of a page at most; throws AsimovError('usage') otherwise. */
export function checkTeamGroundRules(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TEAM_GROUND_RULES_BYTES) {
    throw new AsimovError('usage', `the team's ground rules are ${bytes} bytes, more than the ${MAX_TEAM_GROUND_RULES_BYTES} the judge is sent; shorten them`);
  }
  if (text.includes('\uFFFD')) throw new AsimovError('usage', 'the team\'s ground rules are not valid UTF-8');
}
