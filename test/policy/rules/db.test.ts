// The db rules: SQL, Redis and MongoDB statements found wherever a client takes them (options, positional
// arguments, here-docs, here-strings, literal pipes), read case-insensitively without comments or strings.

import { describe, test } from 'node:test';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { rules, sqlStatements, stripSql } from '../../../src/policy/rules/db.ts';
import assert from 'node:assert/strict';

testRuleExamples(rules);

tierTable('dropping a database is hard_deny wherever the SQL comes from', [
  ['psql -c "DROP DATABASE app"', 'hard_deny'],
  ['psql --command="drop database app"', 'hard_deny'],
  ['psql -h db -U postgres -d postgres -c "DROP DATABASE IF EXISTS app;"', 'hard_deny'],
  ['mysql -uroot -psecret -e "DROP DATABASE shop"', 'hard_deny'],
  ['mysql --execute="drop schema shop"', 'hard_deny'],
  ['mariadb -e "DrOp DaTaBaSe x"', 'hard_deny'],
  ['echo "DROP DATABASE app;" | psql', 'hard_deny'],
  ['printf "DROP DATABASE app;" | mysql', 'hard_deny'],
  ['psql <<< "DROP DATABASE app"', 'hard_deny'],
  ['psql <<EOF\n\\c postgres\nDROP DATABASE app;\nEOF', 'hard_deny'],
  ['cat <<SQL | psql\nDROP DATABASE app;\nSQL', 'hard_deny'],
  ['psql -c "SELECT 1; DROP DATABASE app"', 'hard_deny'],
  ['psql -c "/* c */ DROP /* c */ DATABASE app"', 'hard_deny'],
  ['docker exec -i db psql -U postgres -c "drop database app"', 'hard_deny'],
  ['sudo -u postgres psql -c "DROP DATABASE app"', 'hard_deny'],
  ['dropdb app', 'hard_deny'],
  ['mysqladmin -f drop shop', 'hard_deny'],
  ['redis-cli flushall', 'hard_deny'],
  ['redis-cli -n 1 FLUSHDB', 'hard_deny'],
  ['mongosh mongodb://localhost/shop --eval "db.dropDatabase()"', 'hard_deny'],
]);

tierTable('table-level loss is soft_deny', [
  ['psql -c "DROP TABLE users"', 'soft_deny'],
  ['psql -c "TRUNCATE orders"', 'soft_deny'],
  ['psql -c "delete from sessions"', 'soft_deny'],
  ['psql -c "UPDATE users SET password = NULL"', 'soft_deny'],
  ['sqlite3 app.db "DELETE FROM t"', 'soft_deny'],
  ['sqlite3 -cmd "DROP TABLE t" app.db', 'soft_deny'],
  ['mysql shop -e "truncate table carts"', 'soft_deny'],
  ['mongosh --eval "db.carts.drop()"', 'soft_deny'],
  ['mongosh --eval "db.carts.deleteMany({})"', 'soft_deny'],
  ['redis-cli CONFIG SET maxmemory-policy noeviction', 'soft_deny'],
]);

tierTable('reading stays allow', [
  ['psql -c "SELECT * FROM users LIMIT 10"', 'allow'],
  ['psql -c "\\dt"', 'allow'],
  ['psql -c "EXPLAIN SELECT 1"', 'allow'],
  ['psql -l', 'allow'],
  ['mysql -e "SHOW TABLES"', 'allow'],
  ['mysql -e "DESCRIBE users"', 'allow'],
  ['sqlite3 data.db ".schema users"', 'allow'],
  ['sqlite3 data.db "SELECT count(*) FROM events"', 'allow'],
  ['redis-cli ping', 'allow'],
  ['redis-cli KEYS "session:*"', 'allow'],
  ['redis-cli INFO memory', 'allow'],
  ['mongosh --quiet --eval "db.users.find({active: true}).limit(5)"', 'allow'],
]);

describe('statements are read, not grepped', () => {
  test('comments and string literals are removed before reading', () => {
    assert.deepEqual(sqlStatements("SELECT 'DROP TABLE x' -- DROP TABLE y\n; /* DROP */ SELECT 1", false), ["SELECT ''", 'SELECT 1']);
    assert.equal(stripSql("a 'it''s' b", false), "a '' b");
    assert.equal(stripSql('a $$DROP TABLE x$$ b', false), "a '' b");
    assert.equal(stripSql('a # DROP\nb', true).replace(/\s+/g, ' '), 'a b');
  });
  test('a WHERE clause makes DELETE and UPDATE ordinary', () => {
    expectNoRule('psql -c "DELETE FROM users WHERE id = 7"', 'db.delete-all');
    expectNoRule('mysql -e "update users set a=1 where id in (1,2)"', 'db.delete-all');
  });
  test('dangerous words inside data or identifiers do not count', () => {
    expectNoRule('psql -c "SELECT * FROM drop_requests"', 'db.drop');
    expectNoRule('psql -c "INSERT INTO log VALUES (\'DROP DATABASE x\')"', 'db.drop');
    expectNoRule('redis-cli SET cmd FLUSHALL', 'db.redis-flush');
    expectNoRule('echo "DROP DATABASE x"', 'db.drop');
    expectNoRule('git commit -m "DROP TABLE users"', 'db.drop');
  });
  test('SQL from a file is not known, so nothing is allowed on its account', () => {
    expectNoRule('psql -f schema.sql', 'db.read-only');
    expectNoRule('mysql shop < dump.sql', 'db.read-only');
    expectNoRule('psql -c "$SQL"', 'db.read-only');
  });
  test('EXPLAIN ANALYZE runs the statement it explains', () => {
    expectRule('psql -c "EXPLAIN ANALYZE DELETE FROM users"', 'db.delete-all');
    expectNoRule('psql -c "EXPLAIN ANALYZE DELETE FROM users"', 'db.read-only');
  });
});

tierTable('writes to a data store\'s HTTP API are database writes', [
  ['curl -X POST http://localhost:9200/logs/_delete_by_query -d \'{"query":{"match_all":{}}}\'', 'soft_deny'],
  ['curl -X POST http://localhost:9200/logs/_close', 'soft_deny'],
  ['curl -X PUT http://localhost:9200/_cluster/settings -d \'{}\'', 'soft_deny'],
  ['http POST :7700/indexes/products/documents/delete-batch', 'soft_deny'],
  ['curl -X DELETE http://127.0.0.1:5984/mydb', 'soft_deny'],
  ['curl -X POST "http://localhost:8123/?query=DROP%20TABLE%20t"', 'soft_deny'],
  ['curl -X GET "http://localhost:9200/logs/_search?q=error"', 'allow'],
  ['curl -X POST http://localhost:9200/logs/_search -d \'{"size":1}\'', 'allow'],
  ['curl -X POST http://localhost:7700/indexes/products/search -d \'{"q":"x"}\'', 'allow'],
  ['curl -X POST "http://localhost:9090/api/v1/query?query=up"', 'allow'],
  ['curl -X POST http://localhost:3000/api/users -d \'{"name":"x"}\'', 'allow'],
  ['http GET :9200/_cat/indices?v', 'allow'],
]);
