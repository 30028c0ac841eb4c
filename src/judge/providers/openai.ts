// The OpenAI-compatible back-end (OpenAI, Ollama, vLLM, LM Studio…), with the official SDK: Chat
// Completions with `response_format: json_schema` (strict), temperature 0. The reply's text must be the
// verdict object and nothing else. The SDK's own retries are off: the factory does the one retry itself.

import OpenAI from 'openai';
import { parseVerdictText, VERDICT_JSON_SCHEMA, type ParsedVerdict } from '../parse.ts';
import { failure, sdkFailure, type ProviderReply, type ProviderRequest } from './provider.ts';
import { isOpenAIItself, OPENAI_BASE_URL } from '../requirements.ts';

/** Local servers (Ollama, vLLM…) take any key, but the SDK insists on one. */
const NO_KEY = 'asimov-no-key';

const clients = new Map<string, OpenAI>();

function clientFor(apiKey: string, baseURL: string, env: NodeJS.ProcessEnv): OpenAI {
  const organization = env.OPENAI_ORG_ID?.trim() || null;
  const project = env.OPENAI_PROJECT_ID?.trim() || null;
  const id = JSON.stringify([apiKey, baseURL, organization, project]);
  let c = clients.get(id);
  if (!c) {
    c = new OpenAI({ apiKey, baseURL, organization, project, maxRetries: 0, logLevel: 'off' });
    clients.set(id, c);
  }
  return c;
}

export async function askOpenAI(req: ProviderRequest): Promise<ProviderReply> {
  const baseURL = req.baseUrl ?? (req.env.OPENAI_BASE_URL?.trim() || OPENAI_BASE_URL);
  let apiKey = req.env.OPENAI_API_KEY?.trim();
  if (!apiKey) {
    if (isOpenAIItself(baseURL)) return failure('judge_missing_key', 'no OpenAI key: set OPENAI_API_KEY, or give judge.baseUrl for a local OpenAI-compatible server');
    apiKey = NO_KEY;
  }
  const client = clientFor(apiKey, baseURL, req.env);
  let completion: OpenAI.Chat.Completions.ChatCompletion;
  try {
    completion = await client.chat.completions.create(
      {
        model: req.model,
        temperature: 0,
        messages: [
          { role: 'system', content: req.prompt.system },
          { role: 'user', content: req.prompt.user },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'verdict', strict: true, schema: VERDICT_JSON_SCHEMA as unknown as Record<string, unknown> },
        },
      },
      { signal: req.signal, timeout: req.timeoutMs, maxRetries: 0 },
    );
  } catch (e) {
    if ((e as { name?: unknown })?.name === 'SyntaxError') return failure('judge_malformed', `the judge's server sent a body that is not JSON: ${(e as Error).message}`);
    return sdkFailure(e, req.signal.aborted);
  }
  const u = completion.usage;
  const parsed = readCompletion(completion);
  return u ? { kind: 'answer', parsed, usage: { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0 } } : { kind: 'answer', parsed };
}

/** The verdict in a completion: one choice, finished normally, whose text is exactly the verdict object. */
export function readCompletion(c: { choices?: unknown }): ParsedVerdict {
  const choices = Array.isArray(c.choices) ? (c.choices as Array<{ finish_reason?: unknown; message?: { content?: unknown; refusal?: unknown } }>) : [];
  if (choices.length !== 1) return { ok: false, problem: choices.length === 0 ? 'the reply has no choices' : 'the reply has more than one choice' };
  const ch = choices[0]!;
  if (ch.finish_reason === 'length') return { ok: false, problem: 'the reply was cut off (length)' };
  if (typeof ch.message?.refusal === 'string' && ch.message.refusal.trim() !== '') return { ok: false, problem: 'the model refused to answer' };
  if (ch.finish_reason === 'content_filter') return { ok: false, problem: 'the reply was withheld by a content filter' };
  const content = ch.message?.content;
  if (typeof content !== 'string') return { ok: false, problem: 'the reply is empty' };
  return parseVerdictText(content);
}
