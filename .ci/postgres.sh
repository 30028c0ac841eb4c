# Sourced by .ci/run: a scratch PostgreSQL cluster for the tests of `asimov serve --database` and replicas
# (test/helpers/postgres.ts makes a fresh database per test file on it). Installs Debian's postgresql when no
# binaries are there, starts a cluster in a temp dir on a free loopback port (trust auth, 127.0.0.1 only; as
# the postgres user when run as root: initdb refuses root), exports ASIMOV_TEST_DATABASE_URL, and stops it
# on exit. Without PostgreSQL the tests skip, and say so; CI does not fail for it.
# A URL given by the caller (ASIMOV_TEST_DATABASE_URL already set) is used as it is.

ci_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

ci_as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

ci_postgres_stop() {
  if [ -n "${CI_PG_DIR:-}" ]; then
    ci_as_postgres "$CI_PG_BIN/pg_ctl" -D "$CI_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$CI_PG_DIR"
    CI_PG_DIR=
  fi
}

ci_postgres_start() {
  [ -n "${ASIMOV_TEST_DATABASE_URL:-}" ] && return 0
  if [ -z "$(ci_pg_bin)" ]; then
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql; } >/dev/null 2>&1 \
      || { sudo -n apt-get update -qq && sudo -n apt-get install -y -qq --no-install-recommends postgresql; } >/dev/null 2>&1 \
      || { echo "postgresql could not be installed; the PostgreSQL and replica tests will be skipped" >&2; return 0; }
  fi
  CI_PG_BIN="$(ci_pg_bin)"
  if [ -z "$CI_PG_BIN" ] || [ ! -x "$CI_PG_BIN/initdb" ]; then
    echo "no initdb in /usr/lib/postgresql/*/bin; the PostgreSQL and replica tests will be skipped" >&2
    return 0
  fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "running as root without a postgres user to run initdb as; the PostgreSQL and replica tests will be skipped" >&2
    return 0
  fi
  CI_PG_DIR="$(mktemp -d)"
  [ "$(id -u)" = 0 ] && chown postgres: "$CI_PG_DIR"
  local port
  port="$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")"
  if ci_as_postgres "$CI_PG_BIN/initdb" -D "$CI_PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null \
    && ci_as_postgres "$CI_PG_BIN/pg_ctl" -D "$CI_PG_DIR/data" -l "$CI_PG_DIR/postgres.log" -w -t 60 \
      -o "-h 127.0.0.1 -p $port -k $CI_PG_DIR -c fsync=off -c synchronous_commit=off -c max_connections=200" start >/dev/null; then
    trap ci_postgres_stop EXIT
    export ASIMOV_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
    echo "PostgreSQL for the tests: $ASIMOV_TEST_DATABASE_URL ($CI_PG_BIN)"
  else
    echo "the scratch PostgreSQL cluster did not start; the PostgreSQL and replica tests will be skipped" >&2
    cat "$CI_PG_DIR/postgres.log" >&2 2>/dev/null || true
    rm -rf "$CI_PG_DIR"
    CI_PG_DIR=
  fi
}
