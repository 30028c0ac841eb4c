// The judge factory: settings from the policy and the environment, and a Judge that asks one provider
// within a time budget, retries once where that can help, keeps allow/deny in the cache, and turns every
// failure into `unsure` with a code and the cause (DESIGN §5). Nothing here ever answers allow by itself.

import { nowMs } from '../core/lazy.ts';
import type { JudgeConfig } from '../policy/schema.ts';
import { createJudgeCache, defaultCacheDir, judgeCacheKey, type JudgeCache } from './cache.ts';
import { buildPrompt, CallTooLargeError, type JudgePrompt } from './prompt.ts';
import type { Provider, ProviderReply, ProviderRequest } from './providers/provider.ts';
import { judgeSwitchOn } from './switch.ts';
import type { Judge, JudgeRequest, JudgeResult, JudgeVerdict } from './types.ts';

export interface JudgeSettings {
  provider: 'anthropic' | 'openai' | 'claude-cli';
  model: string;
  baseUrl?: string;
  timeoutMs: number;
  onUncertain: 'ask' | 'deny';
  sendUserRequest: boolean;
}

/** A small, fast model per provider: the judge answers one short question per call. */
export const DEFAULT_MODELS: Readonly<Record<JudgeSettings['provider'], string>> = {
  anthropic: 'claude-haiku-4-5',
  openai: 'gpt-4.1-mini',
  'claude-cli': 'haiku',
};
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Kept back from the caller's deadline for what follows the judge: the audit line and the reply. */
export const DEADLINE_MARGIN_MS = 200;
/** The wait before the retry when the server names none. */
const DEFAULT_RETRY_WAIT_MS = 500;
/** A retry is only worth starting with at least this much of the budget left after the wait. */
const MIN_RETRY_BUDGET_MS = 1_000;

/**
 * null = judge off. GATE_CHECK=false → null always (zero overhead: nothing of the judge is even imported);
 * GATE_CHECK=true → on (defaults when the policy has no judge section); otherwise on iff the policy has one.
 */
export function resolveJudgeSettings(config: JudgeConfig | undefined, env: NodeJS.ProcessEnv): JudgeSettings | null {
  if (!judgeSwitchOn(config !== undefined && config !== null, env)) return null;
  const provider = config?.provider ?? 'anthropic';
  const s: JudgeSettings = {
    provider,
    model: config?.model ?? DEFAULT_MODELS[provider],
    timeoutMs: config?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    onUncertain: config?.onUncertain ?? 'ask',
    sendUserRequest: config?.sendUserRequest ?? false,
  };
  if (config?.baseUrl) s.baseUrl = config.baseUrl;
  return s;
}

async function loadProvider(name: JudgeSettings['provider']): Promise<Provider> {
  // One import per provider, on first use: an SDK costs tens of milliseconds to load.
  switch (name) {
    case 'anthropic':
      return (await import('./providers/anthropic.ts')).askAnthropic;
    case 'openai':
      return (await import('./providers/openai.ts')).askOpenAI;
    case 'claude-cli':
      return (await import('./providers/claude-cli.ts')).askClaudeCli;
  }
}

export function createJudge(settings: JudgeSettings, opts: { env?: NodeJS.ProcessEnv; cache?: false | { dir: string; ttlMs?: number } } = {}): Judge {
  const env = opts.env ?? process.env;
  let cache: JudgeCache | null = null;
  if (opts.cache !== false) {
    cache = createJudgeCache(opts.cache?.ttlMs !== undefined ? { dir: opts.cache.dir, ttlMs: opts.cache.ttlMs } : { dir: opts.cache?.dir ?? defaultCacheDir(env) });
  }
  let provider: Provider | undefined;

  const evaluate = async (req: JudgeRequest): Promise<JudgeResult> => {
    const t0 = nowMs();
    const result = (verdict: JudgeVerdict, reason: string, extra: Partial<JudgeResult> = {}): JudgeResult => ({
      verdict,
      reason,
      provider: settings.provider,
      model: settings.model,
      latencyMs: nowMs() - t0,
      cacheHit: false,
      ...extra,
    });
    const unsure = (errorCode: string, reason: string) => result('unsure', reason, { errorCode });

    try {
      let prompt: JudgePrompt;
      try {
        prompt = buildPrompt(req);
      } catch (e) {
        if (e instanceof CallTooLargeError) return unsure('judge_input_too_large', e.message);
        throw e;
      }

      const key = cache
        ? judgeCacheKey({ groundRules: req.groundRules, call: req.call, classification: req.classification, intent: req.intent, provider: settings.provider, model: settings.model })
        : undefined;
      const hit = key !== undefined ? cache!.get(key) : undefined;
      if (hit) return result(hit.verdict, hit.reason, { cacheHit: true });

      const budgetEnd = Date.now() + Math.min(settings.timeoutMs, req.deadline !== undefined ? req.deadline - Date.now() - DEADLINE_MARGIN_MS : Infinity);
      if (req.signal?.aborted || budgetEnd <= Date.now()) return unsure('judge_timeout', 'no time was left before the deadline to ask the judge');

      provider ??= await loadProvider(settings.provider);
      const base: Omit<ProviderRequest, 'timeoutMs' | 'signal'> = { prompt, model: settings.model, env };
      if (settings.baseUrl !== undefined) base.baseUrl = settings.baseUrl;
      let reply: ProviderReply = await attempt(provider, base, budgetEnd, req.signal);
      if (reply.kind === 'failure' && reply.retryable) {
        const wait = Math.max(0, reply.retryAfterMs ?? DEFAULT_RETRY_WAIT_MS);
        if (budgetEnd - Date.now() - wait < MIN_RETRY_BUDGET_MS) {
          reply = { ...reply, message: `${reply.message} (not retried: a retry needs a wait of ${Math.round(wait)} ms, which the time budget does not allow)` };
        } else if (!(await sleep(wait, req.signal))) {
          return unsure('judge_timeout', `${reply.message}; the caller gave up while the judge waited to retry`);
        } else {
          reply = await attempt(provider, base, budgetEnd, req.signal);
        }
      }

      if (reply.kind === 'failure') return unsure(reply.code, reply.message);
      const usage = reply.usage ? { usage: reply.usage } : {};
      if (!reply.parsed.ok) return result('unsure', `the judge's reply could not be used: ${reply.parsed.problem}`, { errorCode: 'judge_malformed', ...usage });
      const { verdict, reason } = reply.parsed;
      if (key !== undefined && (verdict === 'allow' || verdict === 'deny')) cache!.set(key, { verdict, reason });
      return result(verdict, reason, usage);
    } catch (e) {
      return unsure('judge_internal', `the judge failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return { evaluate };
}

/** One request, aborted when the budget ends or the caller gives up. */
async function attempt(provider: Provider, base: Omit<ProviderRequest, 'timeoutMs' | 'signal'>, budgetEnd: number, outer: AbortSignal | undefined): Promise<ProviderReply> {
  // Whole milliseconds: the SDKs reject a fractional timeout (deadlines may come from fractional clocks).
  const timeoutMs = Math.floor(budgetEnd - Date.now());
  if (timeoutMs <= 0 || outer?.aborted) return { kind: 'failure', code: 'judge_timeout', message: 'the judge did not answer within its time budget', retryable: false };
  const ctl = new AbortController();
  const abort = () => ctl.abort();
  const timer = setTimeout(abort, timeoutMs);
  outer?.addEventListener('abort', abort, { once: true });
  try {
    return await provider({ ...base, timeoutMs, signal: ctl.signal });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', abort);
  }
}

/** Waits, unless the caller gives up first; true when the wait ran its course. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
