// What the routes of `asimov serve` share: one gate, the database and its stores, the server's settings.
// Each route module is a function of these (server/app.ts lists them).

import type { Gate } from '../gate/gate.ts';
import type { Database } from '../store/database.ts';
import type { TokenStore } from '../store/tokens.ts';
import type { AuditFeed } from './audit-feed.ts';
import type { EventBus } from './events.ts';
import type { BatchedAuditSink } from './audit-batch.ts';
import type { ApprovalService } from './approvals.ts';
import type { ChainAlert } from './notify.ts';
import type { OtlpExport } from './otlp-export.ts';

export interface ServerDeps {
  gate: Gate;
  db: Database;
  tokens: TokenStore;
  /** The server's environment: the gate reads it; executed commands get an allowlisted part of it. */
  env: NodeJS.ProcessEnv;
  /** The directory relative paths and a missing cwd default to (the server's own). */
  cwd: string;
  /** The public base URL of this server (for links in notifications), e.g. https://gate.example:7420. */
  baseUrl: string;
  /** The gate's audit sink (group commit); a request waits on settled() before it answers. Null: auditing off. */
  audit: BatchedAuditSink | null;
  /** New decisions and approval changes, for the live feed and for calls waiting on a person. */
  events: EventBus;
  /** asimov's version, for /healthz and the OpenAPI document. */
  version: string;
  /** The person on call: approvals of calls the gate would ask about (server/approvals.ts). */
  approvals?: ApprovalService;
  /** Follows the audit log into the decision index, when on (the dashboard's feed). */
  auditFeed?: AuditFeed;
  /** Tells people that a machine's shipped chain was found broken (the webhook, when one is set). */
  alert?: (a: ChainAlert) => void;
  /** Sends every decision on the bus to an OTLP/HTTP logs receiver, when configured. */
  otlpExport?: OtlpExport;
  /** The server's log (its stderr): what goes wrong in the background. */
  log?: (line: string) => void;
  /** Aborted when the server starts closing: long-lived answers (the event stream) end then. */
  closing?: AbortController;
}
