// The Anthropic Messages back-end, with the official SDK. The verdict is a forced call of one tool whose
// input_schema is the verdict's shape (strict), so the reply is structured, not prose to be parsed.
// The SDK's own retries are off (maxRetries 0): the factory does the one retry itself, within the
// caller's deadline. `temperature` is not sent: SDK 1.12 no longer has the parameter (the API deprecated
// it); the forced, schema-bound tool call is what keeps the answer's form fixed.

import Anthropic from '@anthropic-ai/sdk';
import { parseVerdictValue, VERDICT_JSON_SCHEMA, type ParsedVerdict } from '../parse.ts';
import { failure, sdkFailure, type ProviderReply, type ProviderRequest } from './provider.ts';

export const VERDICT_TOOL = 'record_verdict';
const DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** Ample for a verdict and two sentences; a reply cut at this length is `unsure`. */
const MAX_TOKENS = 1024;

/** Clients are kept per key and base URL: a long-lived gate (MCP proxy, HTTP API) reuses connections. */
const clients = new Map<string, Anthropic>();

function clientFor(auth: { apiKey: string } | { authToken: string }, baseURL: string): Anthropic {
  const id = JSON.stringify([auth, baseURL]);
  let c = clients.get(id);
  if (!c) {
    c = new Anthropic({
      ...auth,
      baseURL,
      maxRetries: 0,
      // Never write to stdout: a hook's stdout is its reply to the client.
      logLevel: 'off',
      openTelemetry: false,
    });
    clients.set(id, c);
  }
  return c;
}

export async function askAnthropic(req: ProviderRequest): Promise<ProviderReply> {
  // Keys come from the environment the gate was given, never from files or profiles the SDK might find.
  const apiKey = req.env.ANTHROPIC_API_KEY?.trim();
  const authToken = req.env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (!apiKey && !authToken) {
    return failure('judge_missing_key', 'no Anthropic key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or choose another judge provider');
  }
  const baseURL = req.baseUrl ?? (req.env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_BASE_URL);
  const client = clientFor(apiKey ? { apiKey } : { authToken: authToken! }, baseURL);
  let message: Anthropic.Message;
  try {
    message = await client.messages.create(
      {
        model: req.model,
        max_tokens: MAX_TOKENS,
        system: req.prompt.system,
        messages: [{ role: 'user', content: req.prompt.user }],
        tools: [
          {
            name: VERDICT_TOOL,
            description: 'Record your verdict on the tool call and the reason for it.',
            input_schema: VERDICT_JSON_SCHEMA as unknown as Anthropic.Tool.InputSchema,
            strict: true,
          },
        ],
        tool_choice: { type: 'tool', name: VERDICT_TOOL, disable_parallel_tool_use: true },
      },
      { signal: req.signal, timeout: req.timeoutMs, maxRetries: 0 },
    );
  } catch (e) {
    if ((e as { name?: unknown })?.name === 'SyntaxError') return failure('judge_malformed', `the judge's server sent a body that is not JSON: ${(e as Error).message}`);
    return sdkFailure(e, req.signal.aborted);
  }
  const usage = message.usage ? { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 } : undefined;
  const parsed = readMessage(message);
  return usage ? { kind: 'answer', parsed, usage } : { kind: 'answer', parsed };
}

/** The verdict in a Messages reply: exactly one call of the verdict tool, no text beside it, not cut short. */
export function readMessage(message: { content?: unknown; stop_reason?: unknown }): ParsedVerdict {
  if (message.stop_reason === 'max_tokens') return { ok: false, problem: 'the reply was cut off (max_tokens)' };
  if (message.stop_reason === 'refusal') return { ok: false, problem: 'the model refused to answer' };
  const content = Array.isArray(message.content) ? (message.content as Array<{ type?: unknown; name?: unknown; input?: unknown; text?: unknown }>) : [];
  const calls = content.filter((b) => b?.type === 'tool_use');
  const text = content.filter((b) => b?.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '');
  if (calls.length === 0) return { ok: false, problem: text.length > 0 ? 'the reply is prose, not a verdict' : 'the reply is empty' };
  if (calls.length > 1) return { ok: false, problem: 'the reply holds more than one verdict' };
  if (calls[0]!.name !== VERDICT_TOOL) return { ok: false, problem: `the reply called an unknown tool ${JSON.stringify(String(calls[0]!.name).slice(0, 40))}` };
  if (text.length > 0) return { ok: false, problem: 'the reply has text besides the verdict' };
  return parseVerdictValue(calls[0]!.input);
}
