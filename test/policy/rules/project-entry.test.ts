// The project's own Python entry points (src/policy/rules/project-entry.ts), judged through the whole pack on a
// real project: `python -m <project module>`, application servers on loopback, and the near-misses that stay asked.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recommended } from '../../../src/policy/rules/index.ts';
import { exampleFindings } from '../../../src/policy/examples.ts';
import { isLoopbackBind, isLoopbackHost } from '../../../src/policy/rules/project-entry.ts';
import { rules as devRules } from '../../../src/policy/rules/dev.ts';
import { testRuleExamples } from '../../helpers/rule-tester.ts';

// project-entry.ts holds no rule of its own: its checks are dev.project-tooling's, whose examples run here too.
testRuleExamples(devRules.filter((r) => r.id === 'dev.project-tooling'));

const root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-entry-')));
const project = join(root, 'project');
for (const d of ['app', 'src/cli', 'src/svc', 'nsdir', 'backend/api']) mkdirSync(join(project, d), { recursive: true });
for (const f of ['app/__init__.py', 'app/main.py', 'src/cli/__init__.py', 'src/cli/main.py', 'src/svc/__init__.py', 'src/svc/__main__.py', 'tool.py', 'nsdir/mod.py', 'backend/api/__init__.py', 'backend/api/main.py', 'dash.py', 'wsgi.py', '.env', 'gunicorn.conf.py']) {
  writeFileSync(join(project, f), '');
}
after(() => rmSync(root, { recursive: true, force: true }));
const tier = (line: string) => exampleFindings(line, { rules: recommended }, { cwd: project, projectRoot: project, home: root }).tier;

function table(name: string, rows: readonly [string, string][]): void {
  describe(name, () => {
    for (const [line, want] of rows) test(`${line} is ${want}`, () => assert.equal(tier(line), want));
  });
}

table('python -m runs a module of the project', [
  ['python -m app.main', 'allow'],
  ['python3 -m tool --help', 'allow'],
  ['python -m cli.main', 'allow'], // src layout
  ['python -m svc', 'allow'], // a package's __main__
  ['PYTHONPATH=src python -m cli.main', 'allow'],
  ['PYTHONUNBUFFERED=1 python -m app.main', 'allow'],
  ['cd backend && python -m api.main', 'allow'],
  ['.venv/bin/python -m app.main', 'allow'],
]);

table('python -m of anything else stays asked', [
  ['python -m nosuchmodule', 'unknown'],
  ['python -m antigravity', 'unknown'],
  ['python -m nsdir.mod', 'unknown'], // a namespace directory: an installed package of that name would win
  ['python -m app', 'unknown'], // no __main__: not a runnable module of the project
  ['python -m api.main', 'unknown'], // lives in backend/, not where the command runs
  ['python -P -m app.main', 'unknown'],
  ['python -I -m app.main', 'unknown'],
  ['PYTHONSAFEPATH=1 python -m app.main', 'unknown'],
  ['PYTHONPATH=/tmp/evil python -m app.main', 'unknown'],
  ['PYTHONPATH=src:/tmp/evil python -m cli.main', 'unknown'],
  ['PYTHONHOME=/tmp/py python -m app.main', 'unknown'],
  ["echo 'import os' > app/main.py && python -m app.main", 'unknown'],
  ["echo 'x' | tee app/evil.py && python -m app.main", 'unknown'],
  ['python -m ../app', 'unknown'],
]);

table('application servers serving the project on loopback are allowed', [
  ['uvicorn app.main:app --reload', 'allow'],
  ['uvicorn app.main:app --host 127.0.0.1 --port 8000 --reload', 'allow'],
  ['uvicorn main:app --app-dir backend/api --port 8001', 'allow'],
  ['uvicorn app.main:app --env-file .env', 'allow'],
  ['python -m uvicorn app.main:app --host localhost', 'allow'],
  ['uv run uvicorn app.main:app --reload', 'allow'],
  ['gunicorn app.main:app', 'allow'],
  ['gunicorn -w 4 -k uvicorn.workers.UvicornWorker -b 127.0.0.1:8000 app.main:app', 'allow'],
  ['gunicorn -c gunicorn.conf.py "app.main:create_app()"', 'allow'],
  ['hypercorn app.main:app --bind localhost:8000', 'allow'],
  ['granian --interface asgi app.main:app', 'allow'],
  ['flask run', 'allow'],
  ['flask --app app.main run --debug --port 5001', 'allow'],
  ['python -m flask --app tool run', 'allow'],
  ['FLASK_APP=app.main flask run', 'allow'],
  ['fastapi dev app/main.py', 'allow'],
  ['fastapi run app/main.py --host 127.0.0.1', 'allow'],
  ['streamlit run dash.py', 'allow'],
  ['streamlit run dash.py --server.port 8502 -- --flag', 'allow'],
  ['python -m http.server 8000 --bind 127.0.0.1', 'allow'],
]);

table('servers bound to a public address, or running code from elsewhere, stay asked', [
  ['uvicorn app.main:app --host 0.0.0.0 --port 8000', 'unknown'],
  ['uvicorn app.main:app --host=0.0.0.0', 'unknown'],
  ['uvicorn app.main:app --host 192.168.1.5', 'unknown'],
  ['uvicorn app.main:app --host :: --port 80', 'unknown'],
  ['uvicorn app.main:app --uds /tmp/app.sock', 'unknown'],
  ['uvicorn evil:app', 'unknown'],
  ['uvicorn app.main:app --app-dir /tmp/evil', 'unknown'],
  ['uvicorn app.main:app --log-config /tmp/log.ini', 'unknown'],
  ['uvicorn app.main:app --env-file ~/.aws/credentials', 'unknown'],
  ['uvicorn app.main:app other:app', 'unknown'],
  ['gunicorn -b 0.0.0.0:8000 app.main:app', 'unknown'],
  ['gunicorn -b :8000 app.main:app', 'unknown'],
  ['gunicorn --bind=unix:/tmp/g.sock app.main:app', 'unknown'],
  ['gunicorn -c /tmp/g.py app.main:app', 'unknown'],
  ['gunicorn -c python:evil.conf app.main:app', 'unknown'],
  ['gunicorn --pythonpath src,/tmp/evil app.main:app', 'unknown'],
  ['gunicorn --chdir /tmp app.main:app', 'unknown'],
  ['gunicorn -k evilmod.Worker app.main:app', 'unknown'],
  ['gunicorn --statsd-host collector.example.com:8125 app.main:app', 'unknown'],
  ['gunicorn --paste development.ini', 'unknown'],
  ['hypercorn app.main:app -b 0.0.0.0:80', 'unknown'],
  ['granian --interface asgi --host 0.0.0.0 app.main:app', 'unknown'],
  ['flask run --host 0.0.0.0', 'unknown'],
  ['flask run -h 0.0.0.0 --debug', 'unknown'],
  ['flask shell', 'unknown'],
  ['flask --app /tmp/evil.py run', 'unknown'],
  ['FLASK_APP=/tmp/evil.py flask run', 'unknown'],
  ['fastapi run --host 0.0.0.0', 'unknown'],
  ['fastapi dev /tmp/x.py', 'unknown'],
  ['streamlit run https://example.com/app.py', 'unknown'],
  ['streamlit run /tmp/app.py', 'unknown'],
  ['streamlit run dash.py --server.address 0.0.0.0', 'unknown'],
  ['streamlit run dash.py --server.address=0.0.0.0', 'unknown'],
  ['python -m http.server --bind 127.0.0.1 --cgi', 'unknown'],
  ['python -m http.server -b 127.0.0.1 -d /home', 'unknown'],
  ['python -m http.server 8000', 'soft_deny'],
  ['python -m uvicorn app.main:app --host 0.0.0.0', 'unknown'],
  ['python -P -m uvicorn app.main:app', 'unknown'],
]);

describe('loopback addresses', () => {
  test('hosts', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['0.0.0.0', '::', '', '10.0.0.1', 'localhost.evil.com', '127.0.0.1.nip.io', 'example.com']) assert.ok(!isLoopbackHost(h), h);
  });
  test('binds', () => {
    for (const b of ['127.0.0.1:8000', 'localhost', '[::1]:80', 'localhost:5000']) assert.ok(isLoopbackBind(b), b);
    for (const b of [':8000', '0.0.0.0:80', 'unix:/tmp/s', 'fd://3', '[::]:80', '127.0.0.1:80:90']) assert.ok(!isLoopbackBind(b), b);
  });
});
