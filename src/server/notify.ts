// Notifications: `asimov serve --webhook URL [--webhook-format json|slack]` POSTs each pending approval, and
// each machine whose shipped audit chain was found broken, to a URL, as JSON or as a Slack incoming-webhook
// body, with a link to the dashboard. Fire and forget: a slow or failing receiver is logged and never delays
// or fails a call.

import { describeError } from '../core/errors.ts';
import type { Approval } from '../store/approvals.ts';
import type { ChainProblem, ChainState } from './audit-ingest.ts';

export type WebhookFormat = 'json' | 'slack';
export const WEBHOOK_FORMATS: readonly WebhookFormat[] = ['json', 'slack'];
/** A receiver gets this long to answer before the attempt is abandoned (and logged). */
export const WEBHOOK_TIMEOUT_MS = 5_000;

export interface WebhookOptions {
  url: string;
  format?: WebhookFormat;
}

export interface NotifierOptions extends WebhookOptions {
  /** The server's public base URL, read when a notification goes out (it is known only once listening). */
  baseUrl: () => string;
  log?: (line: string) => void;
  fetch?: typeof fetch;
}

/** The dashboard's page of one approval. */
export function approvalLink(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#/approvals/${encodeURIComponent(id)}`;
}

/** The body a webhook receives for one approval, in either format. */
export function webhookBody(a: Approval, format: WebhookFormat, baseUrl: string): Record<string, unknown> {
  const link = approvalLink(baseUrl, a.id);
  if (format === 'json') return { type: 'approval', link, approval: a };
  const what = summary(a);
  const text = `asimov: ${a.call.agent ?? 'an agent'} asks to run ${what} (${a.decision.rule ?? a.decision.tier}). Approve or deny before ${a.expiresAt}: ${link}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*asimov asks a person on call*\n${escapeSlack(a.decision.reason)}` } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Call*\n\`${escapeSlack(what)}\`` },
          { type: 'mrkdwn', text: `*Where*\n${escapeSlack(a.call.cwd)}` },
          { type: 'mrkdwn', text: `*Rule*\n${escapeSlack(a.decision.rule ?? a.decision.tier)}` },
          { type: 'mrkdwn', text: `*Expires*\n${a.expiresAt}` },
        ],
      },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in asimov' }, url: link }] },
    ],
  };
}

/** A notifier for new approvals: POSTs in the background; failures are logged. */
export function createWebhookNotifier(o: NotifierOptions): (a: Approval) => void {
  const format = o.format ?? 'json';
  return (a) => postInBackground(o, `approval ${a.id}`, () => webhookBody(a, format, o.baseUrl()));
}

/** A machine's chain found broken on arrival (server/audit-ingest.ts): who, and what was found. */
export interface ChainAlert {
  clientId: string;
  tokenName: string;
  host: string | null;
  user: string | null;
  chain: ChainState;
  problems: ChainProblem[];
}

/** The dashboard's team view, where the machine is listed with its problems (`?client=` names it for people). */
export function clientLink(baseUrl: string, clientId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/?client=${encodeURIComponent(clientId)}#team`;
}

export function chainAlertBody(a: ChainAlert, format: WebhookFormat, baseUrl: string): Record<string, unknown> {
  const link = clientLink(baseUrl, a.clientId);
  if (format === 'json') return { type: 'audit_chain', link, alert: a };
  const who = `${a.tokenName}${a.host ? ` on ${a.host}` : ''}${a.user ? ` (${a.user})` : ''}`;
  const what = a.problems.map((p) => `• ${p.message}`).join('\n');
  return {
    text: `asimov: the audit log of ${who} was tampered with or cut: ${a.problems[0]?.message ?? a.chain.problem ?? ''} ${link}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*asimov: an audit log no longer matches what it shipped*\n${escapeSlack(who)}` } },
      { type: 'section', text: { type: 'mrkdwn', text: escapeSlack(what) } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in asimov' }, url: link }] },
    ],
  };
}

/** A notifier for broken chains: one POST per batch that found problems. */
export function createChainAlertNotifier(o: NotifierOptions): (a: ChainAlert) => void {
  const format = o.format ?? 'json';
  return (a) => postInBackground(o, `the chain of client ${a.clientId}`, () => chainAlertBody(a, format, o.baseUrl()));
}

function postInBackground(o: NotifierOptions, what: string, build: () => Record<string, unknown>): void {
  const doFetch = o.fetch ?? fetch;
  const log = o.log ?? (() => {});
  let body: string;
  try {
    body = JSON.stringify(build());
  } catch (e) {
    log(`asimov serve: the webhook for ${what} could not be built: ${describeError(e)}`);
    return;
  }
  void doFetch(o.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) })
    .then(async (r) => {
      await r.body?.cancel().catch(() => {});
      if (!r.ok) log(`asimov serve: the webhook ${redactUrl(o.url)} answered ${r.status} for ${what}`);
    })
    .catch((e: unknown) => log(`asimov serve: the webhook ${redactUrl(o.url)} failed for ${what}: ${describeError(e)}`));
}

function summary(a: Approval): string {
  const input = a.call.input;
  const text = typeof input['command'] === 'string' ? input['command'] : typeof input['file_path'] === 'string' ? `${a.call.tool} ${input['file_path']}` : typeof input['url'] === 'string' ? `${a.call.tool} ${input['url']}` : (a.call.clientTool ?? a.call.tool);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function escapeSlack(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A webhook URL is a secret of sorts (Slack's are): logs show its origin only. */
function redactUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'URL';
  }
}
