// What each judge provider needs before it can answer at all (a key in the environment, the `claude`
// binary), checked without loading an SDK: `asimov judge eval` refuses to start without it, rather than
// run every case into the same failure and report the figures as if the model had answered.

import { findClaudeBinary, CLAUDE_BIN_ENV } from './providers/claude-cli.ts';
import type { JudgeSettings } from './create.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** OpenAI itself needs a key; a local OpenAI-compatible server (Ollama, vLLM…) takes any. */
export function isOpenAIItself(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname.endsWith('openai.com');
  } catch {
    return false;
  }
}

/** Why this judge cannot be asked anything in this environment, naming what to set; null when it can. */
export function judgeRequirementProblem(settings: Pick<JudgeSettings, 'provider' | 'baseUrl'>, env: NodeJS.ProcessEnv): string | null {
  switch (settings.provider) {
    case 'anthropic':
      if (env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim()) return null;
      return 'the anthropic judge needs a key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or choose another provider (--provider openai|claude-cli)';
    case 'openai': {
      const baseURL = settings.baseUrl ?? (env.OPENAI_BASE_URL?.trim() || OPENAI_BASE_URL);
      if (env.OPENAI_API_KEY?.trim() || !isOpenAIItself(baseURL)) return null;
      return 'the openai judge needs a key: set OPENAI_API_KEY, or give --base-url for a local OpenAI-compatible server';
    }
    case 'claude-cli':
      if (findClaudeBinary(env)) return null;
      return `the claude-cli judge needs the Claude Code CLI: ${env[CLAUDE_BIN_ENV] ? `${CLAUDE_BIN_ENV}=${env[CLAUDE_BIN_ENV]} is not an executable absolute path` : 'no `claude` on PATH (or set ASIMOV_CLAUDE_BIN)'}`;
  }
}
