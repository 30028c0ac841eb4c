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
];
