// The schema of asimov serve's state, as numbered migrations applied in order at start-up. The SQL is
// PostgreSQL's own (the embedded store is PGlite, PostgreSQL built to WebAssembly), so the same files serve a
// real PostgreSQL for teams. A migration, once released, is never edited: a change is a new one.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tokens',
    sql: `
      CREATE TABLE tokens (
        id          text PRIMARY KEY,
        name        text NOT NULL,
        hash        text NOT NULL UNIQUE,
        scopes      text[] NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at  timestamptz
      );
      -- A name names one live token; a revoked token's name may be reused.
      CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked_at IS NULL;
    `,
  },
  {
    version: 2,
    name: 'decision index',
    sql: `
      -- The dashboard's index of the audit log (server/audit-feed.ts fills it). The log stays the record of
      -- truth: this table is rebuilt from it when lost, so nothing here is written anywhere else.
      CREATE TABLE decisions (
        decision_id text PRIMARY KEY,
        ts          timestamptz NOT NULL,
        verdict     text NOT NULL,
        tier        text NOT NULL,
        rule        text,
        agent       text,
        session     text,
        tool        text NOT NULL,
        principal   text,
        summary     text NOT NULL,
        event       jsonb NOT NULL
      );
      -- Newest first, with the id breaking ties: the keyset of the list's pages.
      CREATE INDEX decisions_ts ON decisions (ts DESC, decision_id DESC);
      CREATE INDEX decisions_verdict ON decisions (verdict, ts DESC);
      CREATE INDEX decisions_tier ON decisions (tier, ts DESC);
      CREATE INDEX decisions_rule ON decisions (rule, ts DESC);
      CREATE INDEX decisions_agent ON decisions (agent, ts DESC);
      CREATE INDEX decisions_session ON decisions (session, ts DESC);
      -- How far the audit log has been read: the file (device and inode, and a hash of its first line, which
      -- names its chain) and the byte offset after the last complete line indexed.
      CREATE TABLE audit_feed (
        path       text PRIMARY KEY,
        dev        text NOT NULL,
        ino        text NOT NULL,
        head       text,
        byte_offset bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 3,
    name: 'approvals',
    sql: `
      -- Questions put to a person on call: one row per call that waited (or waits) for an answer.
      CREATE TABLE approvals (
        id            text PRIMARY KEY,
        status        text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
        created_at    timestamptz NOT NULL,
        expires_at    timestamptz NOT NULL,
        call          jsonb NOT NULL,
        decision      jsonb NOT NULL,
        fingerprint   text NOT NULL,
        requested_by  text,
        answered_by   text,
        answered_at   timestamptz,
        scope         text CHECK (scope IN ('once', 'session', 'always')),
        reason        text,
        proposed_rule text
      );
      CREATE INDEX approvals_created ON approvals (created_at DESC);
      CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';
      -- A 'session' answer: the same call (fingerprint) in the same session runs without asking again.
      CREATE TABLE approval_grants (
        session_id  text NOT NULL,
        fingerprint text NOT NULL,
        approval_id text NOT NULL REFERENCES approvals (id),
        granted_by  text NOT NULL,
        created_at  timestamptz NOT NULL,
        PRIMARY KEY (session_id, fingerprint)
      );
    `,
  },
  {
    version: 4,
    name: 'team audit',
    sql: `
      -- Every machine that ships its audit log (one row per client: a state directory's random client id),
      -- with the head of its chain as the server last verified it. The records are kept as received; the
      -- head moves only by verified appends, so a client can extend its chain but never rewrite what arrived.
      CREATE TABLE audit_clients (
        client_id    text PRIMARY KEY,
        token_name   text NOT NULL,
        host         text,
        os_user      text,
        first_seen   timestamptz NOT NULL DEFAULT now(),
        last_contact timestamptz NOT NULL DEFAULT now(),
        head_seq     bigint NOT NULL DEFAULT 0,
        head_hash    text NOT NULL,
        -- What the client last said its local log holds (lines, last hash): a shorter log than was shipped is a cut.
        local_lines  bigint,
        local_head   text,
        status       text NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'broken')),
        problem      text,
        problem_at   timestamptz
      );
      CREATE TABLE audit_records (
        client_id   text NOT NULL REFERENCES audit_clients (client_id),
        seq         bigint NOT NULL,
        decision_id text NOT NULL,
        hash        text NOT NULL,
        prev        text NOT NULL,
        ts          timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        event       jsonb NOT NULL,
        PRIMARY KEY (client_id, seq),
        UNIQUE (client_id, decision_id)
      );
      -- Which shipped record a client's log now ends with, when it no longer ends with the head: a cut.
      CREATE INDEX audit_records_hash ON audit_records (client_id, hash);
      -- Each way a client's chain was found broken, in the order found (the dashboard's and verify's evidence).
      CREATE TABLE audit_chain_problems (
        id          bigserial PRIMARY KEY,
        client_id   text NOT NULL REFERENCES audit_clients (client_id),
        at          timestamptz NOT NULL DEFAULT now(),
        kind        text NOT NULL,
        seq         bigint,
        decision_id text,
        message     text NOT NULL
      );
      CREATE INDEX audit_chain_problems_client ON audit_chain_problems (client_id, id);
      -- The decision index holds the team's decisions too: null is this server's own log.
      ALTER TABLE decisions ADD COLUMN client_id text;
      CREATE INDEX decisions_client ON decisions (client_id, ts DESC);
      CREATE INDEX decisions_principal ON decisions (principal, ts DESC);
    `,
  },
  {
    version: 5,
    name: 'team policy',
    sql: `
      -- The team's managed policy as published, one row per version (clients fetch the newest; older rows
      -- are the history). The text is kept exactly as published: its sha256 is the ETag clients send back.
      CREATE TABLE team_policy (
        version      serial PRIMARY KEY,
        policy       text NOT NULL,
        ground_rules text,
        etag         text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now(),
        published_by text NOT NULL
      );
    `,
  },
];
