// deferredKindOf: which paths are files that run code later (and near-misses that are not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deferredKindOf } from '../../../src/content/deferred/index.ts';
import { HOME, PROJECT } from './helpers.ts';

const place = { home: HOME, projectRoot: PROJECT };
const P = PROJECT;

const TABLE: Array<[string, string | null]> = [
  [`${P}/.github/workflows/ci.yml`, 'ci'],
  [`${P}/.github/workflows/release.yaml`, 'ci'],
  [`${P}/vendor/lib/.github/workflows/ci.yml`, 'ci'],
  [`${P}/.github/actions/setup/action.yml`, 'ci'],
  [`${P}/.gitlab-ci.yml`, 'ci'],
  [`${P}/.gitlab/ci/build.yml`, 'ci'],
  [`${P}/.circleci/config.yml`, 'ci'],
  [`${P}/azure-pipelines.yml`, 'ci'],
  [`${P}/.azure-pipelines/release.yml`, 'ci'],
  [`${P}/bitbucket-pipelines.yml`, 'ci'],
  [`${P}/Jenkinsfile`, 'ci'],
  [`${P}/ci/release.jenkinsfile`, 'ci'],
  [`${P}/.buildkite/pipeline.yml`, 'ci'],
  [`${P}/.buildkite/hooks/pre-command`, 'ci'],
  [`${P}/.git/hooks/pre-commit`, 'git-hook'],
  [`${P}/.git/modules/sub/hooks/post-checkout`, 'git-hook'],
  [`${P}/.githooks/pre-push`, 'git-hook'],
  [`${P}/.husky/pre-commit`, 'hook-manager'],
  [`${P}/lefthook.yml`, 'hook-manager'],
  [`${P}/.lefthook.yml`, 'hook-manager'],
  [`${P}/lefthook-local.yml`, 'hook-manager'],
  [`${P}/.pre-commit-config.yaml`, 'hook-manager'],
  [`${P}/.simple-git-hooks.json`, 'hook-manager'],
  [`${P}/.vscode/tasks.json`, 'editor-task'],
  [`${P}/.devcontainer/devcontainer.json`, 'devcontainer'],
  [`${P}/.devcontainer.json`, 'devcontainer'],
  [`${P}/.devcontainer/python/devcontainer.json`, 'devcontainer'],
  [`${P}/.envrc`, 'envrc'],
  [`${P}/services/api/.envrc`, 'envrc'],
  [`${P}/package.json`, 'package-scripts'],
  [`${P}/packages/ui/package.json`, 'package-scripts'],
  [`${P}/setup.py`, 'setup-py'],
  [`${P}/Makefile`, 'makefile'],
  [`${P}/sub/GNUmakefile`, 'makefile'],
  [`${P}/build/rules.mk`, 'makefile'],
  [`${HOME}/.bashrc`, 'shell-init'],
  [`${HOME}/.zshenv`, 'shell-init'],
  [`${HOME}/.profile`, 'shell-init'],
  [`${HOME}/.config/fish/config.fish`, 'shell-init'],
  [`${HOME}/.config/fish/conf.d/x.fish`, 'shell-init'],
  ['/etc/profile.d/x.sh', 'shell-init'],
  ['/etc/zsh/zshrc', 'shell-init'],
  ['/etc/crontab', 'crontab'],
  ['/etc/cron.d/job', 'crontab'],
  ['/etc/cron.daily/job', 'crontab'],
  ['/var/spool/cron/crontabs/dev', 'crontab'],
  [`${HOME}/.config/systemd/user/x.service`, 'systemd-unit'],
  [`${HOME}/.config/systemd/user/x.timer`, 'systemd-unit'],
  ['/etc/systemd/system/x.service', 'systemd-unit'],
  [`${HOME}/.local/share/systemd/user/x.socket`, 'systemd-unit'],
  [`${HOME}/.config/autostart/x.desktop`, 'autostart'],
  ['/etc/xdg/autostart/x.desktop', 'autostart'],
  [`${HOME}/Library/LaunchAgents/com.x.plist`, 'launchd'],
  ['/Library/LaunchDaemons/com.x.plist', 'launchd'],
  [`${HOME}/.local/bin/sudo`, 'path-program'],
  [`${HOME}/bin/git`, 'path-program'],
  ['/usr/local/bin/ls', 'path-program'],
  // case-insensitive file systems (macOS): the same files
  [`${P}/.GIT/HOOKS/PRE-COMMIT`, 'git-hook'],
  [`${P}/.GitHub/Workflows/ci.yml`, 'ci'],
  [`${P}/MAKEFILE`, 'makefile'],
  [`${HOME}/Library/LaunchAgents/x.plist`, 'launchd'],
  // near-misses
  [`${P}/.git/hooks/pre-commit.sample`, null],
  [`${P}/.husky/_/husky.sh`, null],
  [`${P}/.github/dependabot.yml`, null],
  [`${P}/.github/ISSUE_TEMPLATE/bug.yml`, null],
  [`${P}/docs/workflows/ci.yml`, null],
  [`${P}/src/Makefile.md`, null],
  [`${P}/package-lock.json`, null],
  [`${P}/.vscode/settings.json`, null],
  [`${P}/src/index.ts`, null],
  [`${P}/config.yml`, null],
  [`${P}/.githooks/README.md`, null],
  [`${HOME}/.config/environment.d/x.conf`, null],
  [`${HOME}/.local/bin/tools/x`, null],
  [`${HOME}/.bashrc.bak`, null],
  [`${HOME}/.config/autostart/notes.txt`, null],
  [`${HOME}/Library/LaunchAgents/sub/x.plist`, null],
];

for (const [path, want] of TABLE) {
  test(`kind of ${path.replace(HOME, '~')}`, () => assert.equal(deferredKindOf(path, place), want));
}

test('the home directory with a trailing slash is the same home', () => {
  assert.equal(deferredKindOf(`${HOME}/.zshrc`, { home: HOME + '/', projectRoot: PROJECT }), 'shell-init');
});
