// Whether a hook runs where nobody can answer a prompt. Claude Code's `claude -p` treats a hook's `ask` as a
// denial, so there a question is better put to a person on call (policy `approvals:`) than to nobody.
//
// Verified with Claude Code 2.1.330 (a PreToolUse hook dumping its environment): `claude -p` runs hooks with
// CLAUDE_CODE_ENTRYPOINT=sdk-cli and CLAUDE_CODE_SESSION_ATTENDED=0, and the SDK's stream-json mode sets the
// same values, so an SDK host's own permission prompt is not told apart from plain -p. The SDKs for
// TypeScript and Python set `sdk-ts` and `sdk-py`. ASIMOV_HEADLESS=1 says so for any client (0: never).

export function runsHeadless(client: string, env: NodeJS.ProcessEnv): boolean {
  const forced = env.ASIMOV_HEADLESS;
  if (forced === '1' || forced === 'true') return true;
  if (forced === '0' || forced === 'false') return false;
  if (client === 'claude') {
    const entry = env.CLAUDE_CODE_ENTRYPOINT ?? '';
    return entry.startsWith('sdk-') || env.CLAUDE_CODE_SESSION_ATTENDED === '0';
  }
  return false;
}
