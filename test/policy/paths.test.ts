// Tests for path classification, on a fake machine of real directories and real symlinks under os.tmpdir().

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsimovError } from '../../src/core/errors.ts';
import { createPathClassifier, isWithin, type PathClass, type PathClassifier } from '../../src/policy/paths.ts';

let root: string;
let home: string;
let proj: string;
let scratch: string;
let c: PathClassifier;

/** A classifier whose temp dir is `scratch`, so that the fake machine itself (under /tmp) is not temp. */
function classifier(extra: { cwd?: string; projectRoot?: string; protectedPaths?: string[] } = {}): PathClassifier {
  return createPathClassifier({
    cwd: extra.cwd ?? proj,
    projectRoot: extra.projectRoot ?? proj,
    home,
    tmpdir: scratch,
    tempDirs: [scratch],
    ...(extra.protectedPaths ? { protectedPaths: extra.protectedPaths } : {}),
  });
}

function classes(p: string, k: PathClassifier = c): PathClass[] {
  return [...k(p).classes].sort();
}

function has(p: string, cls: PathClass, k: PathClassifier = c): boolean {
  return k(p).classes.has(cls);
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'asimov-paths-')));
  home = join(root, 'home', 'dev');
  proj = join(home, 'proj');
  scratch = join(root, 'scratch');
  for (const d of [join(proj, 'src'), join(proj, '.git', 'hooks'), join(home, '.ssh'), join(home, 'other'), scratch, join(root, 'elsewhere')]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'not a real key');
  writeFileSync(join(proj, 'src', 'a.ts'), '');
  // A link inside the project to the user's keys, a harmless-looking link to the project's own file,
  // a link to a directory outside, and a loop.
  symlinkSync(join(home, '.ssh'), join(proj, 'keys'));
  mkdirSync(join(proj, '.claude'));
  symlinkSync(join(proj, 'src', 'a.ts'), join(proj, '.claude', 'hook.sh'));
  symlinkSync(join(root, 'elsewhere'), join(proj, 'out-link'));
  symlinkSync(join(proj, 'loop-b'), join(proj, 'loop-a'));
  symlinkSync(join(proj, 'loop-a'), join(proj, 'loop-b'));
  symlinkSync(join(home, '.bashrc'), join(proj, 'rc-link')); // dangling: ~/.bashrc does not exist
  symlinkSync(proj, join(root, 'proj-alias'));
  c = classifier();
});

after(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('resolving', () => {
  test('an entry resolves through whatever its directory resolved to, in any order of asking', () => {
    // A classifier reuses a directory's realpath for the entries in it: the link's target must carry over.
    const k = classifier();
    assert.equal(k('keys').abs, join(home, '.ssh'));
    assert.equal(k('keys/id_rsa').abs, join(home, '.ssh', 'id_rsa'));
    assert.ok(has('keys/id_rsa', 'credentials', k));
    assert.equal(k('keys/../proj/src/a.ts').abs, join(proj, 'src', 'a.ts'), '.. after a link leaves its target, not the link');
    const fresh = classifier();
    assert.ok(has('keys/id_rsa', 'credentials', fresh));
    assert.equal(fresh('keys').abs, join(home, '.ssh'));
    assert.equal(fresh('src/a.ts').abs, join(proj, 'src', 'a.ts'));
    assert.equal(fresh('src/missing/deeper.ts').abs, join(proj, 'src', 'missing', 'deeper.ts'));
    assert.equal(fresh('src/a.ts/x').abs, join(proj, 'src', 'a.ts', 'x'), 'under a file: not a directory, kept as named');
  });

  test('what a call found missing, or a file, has nothing under it; a link it found still leads on', () => {
    // The parent is asked first here, so its children are answered from what the call knows of it.
    const k = classifier();
    assert.equal(k('gone').abs, join(proj, 'gone'));
    assert.equal(k('gone/a').abs, join(proj, 'gone', 'a'));
    assert.equal(k('gone/b').abs, join(proj, 'gone', 'b'));
    assert.equal(k('gone/..').abs, proj);
    assert.ok(has('gone/b', 'project', k));
    assert.equal(k('src/a.ts').abs, join(proj, 'src', 'a.ts'));
    assert.equal(k('src/a.ts/x').abs, join(proj, 'src', 'a.ts', 'x'));
    assert.equal(k('out-link').abs, join(root, 'elsewhere'));
    assert.equal(k('out-link/new').abs, join(root, 'elsewhere', 'new'), 'under a link: through the link');
    assert.ok(has('out-link/new', 'outside', k));
    assert.equal(k('keys/id_rsa').abs, join(home, '.ssh', 'id_rsa'));
    assert.equal(k('rc-link/x').abs, join(home, '.bashrc', 'x'), 'under a dangling link: where the link leads');
  });

  test('a project root swapped for a symlink between two calls is resolved afresh on the second', () => {
    // The root's forms are kept for a few seconds across calls; where a new file under it lands must not be.
    const swapRoot = join(root, 'swap', 'proj');
    mkdirSync(swapRoot, { recursive: true });
    const before = classifier({ cwd: swapRoot, projectRoot: swapRoot });
    assert.equal(before('newfile').abs, join(swapRoot, 'newfile'));
    assert.ok(has('newfile', 'project', before));
    renameSync(swapRoot, `${swapRoot}.bak`);
    symlinkSync(join(home, '.ssh'), swapRoot);
    const after = classifier({ cwd: swapRoot, projectRoot: swapRoot });
    assert.equal(after('newfile').abs, join(home, '.ssh', 'newfile'));
    assert.ok(!has('newfile', 'project', after), 'not the project any more');
    assert.ok(has('authorized_keys', 'persistence', after));
    assert.equal(after('id_rsa').abs, join(home, '.ssh', 'id_rsa'), 'an existing entry resolves through the new root too');
    assert.ok(has('id_rsa', 'credentials', after));
  });

  test('relative paths resolve against cwd with . and .. normalized', () => {
    assert.equal(c('src/./x/../a.ts').abs, join(proj, 'src', 'a.ts'));
    assert.equal(c('./').abs, proj);
  });

  test('~ and ~/x expand to the home directory', () => {
    assert.equal(c('~').abs, home);
    assert.equal(c('~/other/f').abs, join(home, 'other', 'f'));
  });

  test('$HOME, ${HOME}, $PWD, ${PWD} and $TMPDIR expand to home, cwd and the temp dir', () => {
    assert.equal(c('$HOME/x').abs, join(home, 'x'));
    assert.equal(c('${HOME}').abs, home);
    assert.equal(c('$PWD/src/a.ts').abs, join(proj, 'src', 'a.ts'));
    assert.equal(c('${PWD}/src').abs, join(proj, 'src'));
    assert.equal(c('$TMPDIR/f').abs, join(scratch, 'f'));
  });

  test('a variable that merely starts with HOME is not $HOME', () => {
    assert.equal(c('$HOMEDIR/x').abs, null);
    assert.ok(has('$HOMEDIR/x', 'dynamic'));
  });

  test('~root is /root and ~+ is the working directory', () => {
    assert.equal(c('~root/.ssh/authorized_keys').abs, '/root/.ssh/authorized_keys');
    assert.equal(c('~+/src').abs, join(proj, 'src'));
  });

  test("another user's ~name is dynamic, in a home, outside, and classified by the rest of the path", () => {
    const info = c('~bob/.ssh/id_rsa');
    assert.equal(info.abs, null);
    for (const k of ['dynamic', 'home', 'outside', 'credentials'] as const) assert.ok(info.classes.has(k), k);
    assert.ok(has('~bob/.bashrc', 'shell-init'));
  });

  test('file:// URLs are read as the path they name', () => {
    assert.equal(c('file:///etc/hosts').abs, '/etc/hosts');
    assert.ok(has('file:///etc/hosts', 'system'));
  });

  test('empty, NUL-containing and over-long inputs are dynamic, never resolved', () => {
    for (const p of ['', 'a\0b', '/' + 'a'.repeat(5000)]) {
      assert.equal(c(p).abs, null);
      assert.deepEqual(classes(p), ['dynamic']);
    }
  });

  test('the same input gives the same answer object from the cache', () => {
    assert.equal(c('src/a.ts'), c('src/a.ts'));
  });

  test('non-absolute cwd, project root or home is refused with a clear error', () => {
    assert.throws(
      () => createPathClassifier({ cwd: 'rel', projectRoot: proj, home }),
      (e: unknown) => e instanceof AsimovError && e.code === 'bad_input' && /cwd must be an absolute path/.test(e.message),
    );
    assert.throws(() => createPathClassifier({ cwd: proj, projectRoot: proj, home: '' }), AsimovError);
  });
});

describe('placement', () => {
  test('the project root is project and project-root; files in it are project only', () => {
    assert.deepEqual(classes('.'), ['project', 'project-root']);
    assert.deepEqual(classes('src/a.ts'), ['project']);
  });

  test('containment is component-aware: a sibling named like the project is outside it', () => {
    assert.ok(!has('../proj-evil/x', 'project'));
    assert.ok(has('../proj-evil/x', 'outside'));
    assert.ok(isWithin('/a/b', '/a/b/c'));
    assert.ok(isWithin('/a/b', '/a/b'));
    assert.ok(!isWithin('/a/b', '/a/bc'));
    assert.ok(isWithin('/', '/x'));
  });

  test('the home directory is home-root, the rest of home outside the project is home and outside', () => {
    assert.deepEqual(classes('~'), ['home-root', 'outside']);
    assert.deepEqual(classes('~/other/notes.txt'), ['home', 'outside']);
  });

  test('the temp directory is temp and not outside', () => {
    assert.deepEqual(classes(join(scratch, 'x')), ['temp']);
  });

  test('by default /tmp, /var/tmp and $TMPDIR are temp', () => {
    const d = createPathClassifier({ cwd: '/w/p', projectRoot: '/w/p', home: '/w', tmpdir: '/custom/tmp' });
    for (const p of ['/tmp/x', '/var/tmp/x', '/custom/tmp/y', '/dev/shm/z']) assert.ok(d(p).classes.has('temp'), p);
    assert.ok(!d('/var/tmp/x').classes.has('system'));
    assert.ok(d('/var/lib/x').classes.has('system'));
  });

  test('a home directory inside /tmp (sandboxes, CI) stays home, not temp; a temp dir inside home stays temp', () => {
    const d = createPathClassifier({ cwd: '/tmp/s/p', projectRoot: '/tmp/s/p', home: '/tmp/s/home', tmpdir: '/tmp/s/home/.tmp' });
    assert.ok(d('/tmp/s/home/notes').classes.has('home'));
    assert.ok(d('/tmp/s/home/notes').classes.has('outside'));
    assert.ok(!d('/tmp/s/home/notes').classes.has('temp'));
    assert.ok(d('/tmp/s/home/.tmp/x').classes.has('temp'));
    assert.ok(d('/tmp/s/other').classes.has('temp'));
  });

  test('exactly / is root', () => {
    assert.ok(has('/', 'root'));
    assert.ok(has('/../..', 'root'));
  });

  test('build artifacts are recognised by whole directory names at any depth inside the project only', () => {
    for (const p of ['node_modules/x/index.js', 'node_modules', 'packages/a/dist/a.js', 'py/__pycache__/m.pyc', 'x.egg-info/PKG-INFO', '.venv/bin/python']) {
      assert.ok(has(p, 'build-artifact'), p);
    }
    for (const p of ['src/a.ts', 'src/node_modules_x/a', 'mydist/a.js', 'src/builder/a.ts']) assert.ok(!has(p, 'build-artifact'), p);
    // A `build` directory above the project root does not make the whole project an artifact.
    const k = createPathClassifier({ cwd: '/w/build/proj', projectRoot: '/w/build/proj', home: '/w', tempDirs: [] });
    assert.ok(!k('src/a.ts').classes.has('build-artifact'));
    assert.ok(!k('/w/dist/x').classes.has('build-artifact'));
  });
});

describe('system and devices', () => {
  test('system directories are system', () => {
    for (const p of ['/etc/hosts', '/usr/local/bin/tool', '/bin/sh', '/lib64/x', '/var/lib/x', '/opt/x', '/boot/vmlinuz', '/proc/1/status', '/System/Library/x', '/private/etc/hosts']) {
      assert.ok(has(p, 'system'), p);
    }
    for (const p of ['/home/x', '/etcetera/x', '/usr-local/x']) assert.ok(!has(p, 'system'), p);
  });

  test('a project that lives under a system prefix is not system, but a project root at a system prefix is', () => {
    const k = createPathClassifier({ cwd: '/usr/src/app', projectRoot: '/usr/src/app', home: '/root', tempDirs: [] });
    assert.ok(!k('lib/a.js').classes.has('system'));
    assert.ok(k('lib/a.js').classes.has('project'));
    assert.ok(k('/usr/bin/env').classes.has('system'));
    const top = createPathClassifier({ cwd: '/etc', projectRoot: '/etc', home: '/root', tempDirs: [] });
    assert.ok(top('hosts').classes.has('system'));
  });

  test('disks and memory are devices; the harmless device files are null-device', () => {
    for (const p of ['/dev/sda', '/dev/nvme0n1', '/dev/mem', '/dev/tcp/example.com/80']) assert.ok(has(p, 'device'), p);
    for (const p of ['/dev/null', '/dev/zero', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/3', '/dev/urandom', '/dev/random']) {
      assert.ok(has(p, 'null-device'), p);
      assert.ok(!has(p, 'device'), p);
    }
  });
});

describe('sensitive names', () => {
  const table: Array<[string, PathClass, boolean]> = [
    ['~/.ssh/id_rsa', 'credentials', true],
    ['~/.ssh/id_rsa.pub', 'credentials', false],
    ['~/.ssh/config', 'credentials', true],
    ['~/.aws/credentials', 'credentials', true],
    ['~/.gnupg/private-keys-v1.d/x.key', 'credentials', true],
    ['~/.config/gcloud/application_default_credentials.json', 'credentials', true],
    ['~/.kube/config', 'credentials', true],
    ['~/.docker/config.json', 'credentials', true],
    ['~/.netrc', 'credentials', true],
    ['~/.npmrc', 'credentials', true],
    ['~/.git-credentials', 'credentials', true],
    ['~/.config/gh/hosts.yml', 'credentials', true],
    ['~/.cargo/credentials.toml', 'credentials', true],
    ['~/Library/Keychains/login.keychain-db', 'credentials', true],
    ['~/.password-store/email.gpg', 'credentials', true],
    ['~/.config/google-chrome/Default/Login Data', 'credentials', true],
    ['~/.mozilla/firefox/abc.default/logins.json', 'credentials', true],
    ['/etc/shadow', 'credentials', true],
    ['/etc/sudoers.d/90-users', 'credentials', true],
    ['/proc/self/environ', 'credentials', true],
    ['.env', 'credentials', true],
    ['config/.env.production', 'credentials', true],
    ['.env.example', 'credentials', false],
    ['.env.sample', 'credentials', false],
    ['.env.template', 'credentials', false],
    ['.env.dist', 'credentials', false],
    ['certs/server.pem', 'credentials', true],
    ['certs/server.key', 'credentials', true],
    ['a.p12', 'credentials', true],
    ['a.pfx', 'credentials', true],
    ['deploy/id_ed25519', 'credentials', true],
    ['deploy/id_ecdsa.pub', 'credentials', false],
    ['credentials.json', 'credentials', true],
    ['k8s/db-secret.yaml', 'credentials', true],
    ['client_secret.json', 'credentials', true],
    ['secret.txt', 'credentials', false],
    ['.htpasswd', 'credentials', true],
    ['android/release.keystore', 'credentials', true],
    ['a.jks', 'credentials', true],
    ['.vault-token', 'credentials', true],
    ['src/keys.ts', 'credentials', false],
    ['~/.bashrc', 'shell-init', true],
    ['~/.zshenv', 'shell-init', true],
    ['~/.profile', 'shell-init', true],
    ['~/.config/fish/config.fish', 'shell-init', true],
    ['/etc/profile.d/x.sh', 'shell-init', true],
    ['/etc/bash.bashrc', 'shell-init', true],
    ['/etc/zsh/zshrc', 'shell-init', true],
    ['.bashrc', 'shell-init', false],
    ['~/other/.bashrc', 'shell-init', false],
    ['~/.ssh/authorized_keys', 'persistence', true],
    ['~/.ssh/authorized_keys2', 'persistence', true],
    ['/etc/sudoers', 'persistence', true],
    ['/etc/crontab', 'persistence', true],
    ['/etc/cron.d/job', 'persistence', true],
    ['/var/spool/cron/crontabs/root', 'persistence', true],
    ['~/.config/systemd/user/x.service', 'persistence', true],
    ['/etc/systemd/system/x.service', 'persistence', true],
    ['/lib/systemd/system/x.service', 'persistence', true],
    ['~/Library/LaunchAgents/x.plist', 'persistence', true],
    ['/Library/LaunchDaemons/x.plist', 'persistence', true],
    ['~/.config/autostart/x.desktop', 'persistence', true],
    ['/etc/rc.local', 'persistence', true],
    ['/etc/ld.so.preload', 'persistence', true],
    ['~/.gitconfig', 'persistence', true],
    ['/root/.ssh/authorized_keys', 'persistence', true],
    ['deploy/x.service', 'persistence', false],
    ['.claude/settings.json', 'agent-config', true],
    ['.agents/plugins/asimov/hooks/hooks.json', 'agent-config', true],
    ['~/.agents/plugins/asimov/plugin.json', 'agent-config', true],
    ['.claude', 'agent-config', true],
    ['CLAUDE.md', 'agent-instructions', true],
    ['CLAUDE.md', 'agent-config', false],
    ['docs/CLAUDE.local.md', 'agent-instructions', true],
    ['docs/CLAUDE.local.md', 'agent-config', false],
    ['claude.md', 'agent-instructions', true],
    ['claude.md', 'agent-config', false],
    ['.gemini/settings.json', 'agent-config', true],
    ['GEMINI.md', 'agent-instructions', true],
    ['GEMINI.md', 'agent-config', false],
    ['~/.codex/config.toml', 'agent-config', true],
    ['AGENTS.md', 'agent-instructions', true],
    ['AGENTS.md', 'agent-config', false],
    ['.cursor/hooks.json', 'agent-config', true],
    ['.cursorrules', 'agent-instructions', true],
    ['.cursorrules', 'agent-config', false],
    ['.windsurf/hooks.json', 'agent-config', true],
    ['.windsurfrules', 'agent-instructions', true],
    ['.windsurfrules', 'agent-config', false],
    ['.github/copilot-instructions.md', 'agent-instructions', true],
    ['.github/copilot-instructions.md', 'agent-config', false],
    ['.github/hooks/x.json', 'agent-config', true],
    ['~/.copilot/hooks/h.json', 'agent-config', true],
    ['~/.qwen/settings.json', 'agent-config', true],
    ['~/.factory/settings.json', 'agent-config', true],
    ['~/.kimi/config.toml', 'agent-config', true],
    ['.mcp.json', 'agent-config', true],
    ['.vscode/mcp.json', 'agent-config', true],
    ['~/.config/opencode/plugin/x.js', 'agent-config', true],
    ['~/.cline/hooks/PreToolUse', 'agent-config', true],
    ['~/.codeium/windsurf/hooks.json', 'agent-config', true],
    ['~/.claude.json', 'agent-config', true],
    ['.github/workflows/ci.yml', 'agent-config', false],
    // Instructions are not controls (INSTRUCTIONS_OVER_CONFIG): a command or skill inside .claude/ is an
    // instruction file, the settings and hooks beside it stay configuration.
    ['.claude/commands/ship.md', 'agent-instructions', true],
    ['.claude/commands/ship.md', 'agent-config', false],
    ['~/.claude/skills/x/SKILL.md', 'agent-instructions', true],
    ['.cursor/rules/style.mdc', 'agent-instructions', true],
    ['.cursor/rules/style.mdc', 'agent-config', false],
    ['.claude/hooks/x.sh', 'agent-config', true],
    ['~/.claude/plans/brave-otter.md', 'agent-plan', true],
    ['~/.claude/plans/brave-otter.md', 'agent-config', false],
    ['.cursor/plans/refactor.plan.md', 'agent-plan', true],
    ['~/.claude/settings.json', 'agent-plan', false],
    ['.vscode/settings.json', 'agent-config', false],
    ['docs/claude.txt', 'agent-config', false],
    ['.asimov/policy.yaml', 'asimov-config', true],
    ['~/.config/asimov/policy.yaml', 'asimov-config', true],
    ['/etc/asimov/policy.yaml', 'asimov-config', true],
    ['~/.local/state/asimov/audit.jsonl', 'asimov-config', true],
    ['docs/asimov.md', 'asimov-config', false],
    ['.git/hooks/pre-commit', 'git-internals', true],
    ['.git/config', 'git-internals', true],
    ['.git', 'git-internals', true],
    ['.gitignore', 'git-internals', false],
    ['~/other/.git/hooks/post-checkout', 'persistence', true],
    ['~/other/.git/config', 'persistence', true],
    ['~/other/.git/hooks/post-checkout', 'git-internals', false],
  ];
  for (const [p, cls, expected] of table) {
    test(`${p} is ${expected ? '' : 'not '}${cls}`, () => {
      assert.equal(has(p, cls), expected, `${p}: ${classes(p).join(',')}`);
    });
  }
});

describe('dynamic paths', () => {
  test('a variable makes a path dynamic with no absolute form', () => {
    for (const p of ['$X/a', '${OUT}/a', '$(pwd)/a', '`pwd`/a', 'build/$NAME.js']) {
      assert.equal(c(p).abs, null, p);
      assert.ok(has(p, 'dynamic'), p);
    }
  });

  test('the literal tail still tells credentials, agent config and shell init', () => {
    assert.ok(has('$X/.ssh/id_rsa', 'credentials'));
    assert.ok(has('$DIR/.claude/settings.json', 'agent-config'));
    assert.ok(has('$SOMEHOME/.bashrc', 'shell-init'));
    assert.ok(has('/home/$USER/.ssh/authorized_keys', 'persistence'));
    assert.ok(has('$X/.env', 'credentials'));
  });

  test('the literal head still tells where the path is', () => {
    assert.ok(has('/etc/$X', 'system'));
    assert.ok(has('/etc/$X', 'outside'));
    assert.ok(has('./$X', 'project'));
    assert.ok(has('~/.ssh/$KEY', 'credentials'));
  });

  test('a leading variable in a relative path gives no head: it may hold an absolute path', () => {
    assert.deepEqual(classes('$X/a.txt'), ['dynamic']);
  });

  test('a .. after the variable voids what the head said', () => {
    assert.ok(!has('./$X/../../etc/x', 'project'));
    assert.ok(has('./$X/../../etc/x', 'dynamic'));
  });

  test('a glob in a parent component is dynamic but keeps its head and tail', () => {
    const info = c('/home/*/.ssh/id_rsa');
    assert.equal(info.abs, null);
    assert.ok(info.classes.has('dynamic'));
    assert.ok(info.classes.has('credentials'));
    assert.ok(has('src/*/index.ts', 'project'));
    assert.ok(has('src/*/index.ts', 'dynamic'));
  });
});

describe('globs in the last component', () => {
  test('classify like their directory, with the pattern kept in the absolute form', () => {
    const info = c('/etc/*');
    assert.equal(info.abs, '/etc/*');
    assert.ok(info.classes.has('system'));
    assert.ok(!info.classes.has('dynamic'));
    assert.ok(has('~/.ssh/*', 'credentials'));
    assert.equal(c('src/*.ts').abs, join(proj, 'src', '*.ts'));
    assert.ok(has('src/*.ts', 'project'));
  });

  test('take the classes of the sensitive names the pattern can match', () => {
    assert.ok(has('~/.bash*', 'shell-init'));
    assert.ok(has('certs/*.pem', 'credentials'));
    assert.ok(has('.env*', 'credentials'));
    assert.ok(has('*.md', 'agent-instructions'));
    assert.ok(!has('*.ts', 'credentials'));
  });

  test('a pattern over every entry takes the directory\'s exact class: /* is root, ~/* home-root, ./* project-root', () => {
    assert.ok(has('/*', 'root'));
    assert.ok(has('~/*', 'home-root'));
    assert.ok(has('~/.*', 'home-root'));
    assert.ok(has('./*', 'project-root'));
    assert.ok(!has('*.ts', 'project-root'));
    assert.ok(!has('src/*', 'project-root'));
  });

  test('a bare * is not probed against sensitive names', () => {
    assert.ok(!has('*', 'credentials'));
    assert.ok(!has('*', 'agent-config'));
    assert.ok(has('*', 'project'));
  });
});

describe('symlinks', () => {
  test('a link inside the project to ~/.ssh is classified by its target: credentials and outside', () => {
    const info = c('keys/id_rsa');
    assert.equal(info.abs, join(home, '.ssh', 'id_rsa'));
    assert.ok(info.classes.has('credentials'));
    assert.ok(info.classes.has('outside'));
    assert.ok(!info.classes.has('project'));
  });

  test('a link named like agent config stays agent config even though it points into the project', () => {
    const info = c('.claude/hook.sh');
    assert.equal(info.abs, join(proj, 'src', 'a.ts'));
    assert.ok(info.classes.has('agent-config'));
    assert.ok(info.classes.has('project'));
  });

  test('a new file under a linked directory resolves through the link', () => {
    const info = c('out-link/new/file.txt');
    assert.equal(info.abs, join(root, 'elsewhere', 'new', 'file.txt'));
    assert.ok(info.classes.has('outside'));
    assert.ok(!info.classes.has('project'));
  });

  test('a dangling link is resolved to where a write would create the file', () => {
    const info = c('rc-link');
    assert.equal(info.abs, join(home, '.bashrc'));
    assert.ok(info.classes.has('shell-init'));
  });

  test('link/.. goes up from the link target, as the kernel does', () => {
    assert.equal(c('keys/../other').abs, join(home, 'other'));
    assert.ok(has('keys/../other', 'outside'));
  });

  test('a symlink loop neither throws nor escapes classification', () => {
    const info = c('loop-a/x');
    assert.ok(info.abs !== null);
    assert.ok(info.classes.has('project'));
  });

  test('a project reached through a symlinked path is still the project', () => {
    const alias = join(root, 'proj-alias');
    const k = classifier({ cwd: alias, projectRoot: alias });
    assert.ok(k('src/a.ts').classes.has('project'));
    assert.ok(k(join(proj, 'src', 'a.ts')).classes.has('project'));
  });

  test('/dev paths are not resolved: /dev/stdout stays a null device', () => {
    assert.equal(c('/dev/stdout').abs, '/dev/stdout');
  });
});

describe('protected paths', () => {
  test('relative patterns anchor at the project root and protect what is under them', () => {
    const k = classifier({ protectedPaths: ['db/migrations', 'config/prod/**'] });
    assert.ok(k('db/migrations/001.sql').classes.has('protected'));
    assert.ok(k('db/migrations').classes.has('protected'));
    assert.ok(k('config/prod/db.yml').classes.has('protected'));
    assert.ok(!k('src/db/migrations/x').classes.has('protected'));
    assert.ok(!k('config/dev/db.yml').classes.has('protected'));
  });

  test('patterns without a slash match the base name at any depth, dotfiles included', () => {
    const k = classifier({ protectedPaths: ['*.sqlite', '.secrets'] });
    assert.ok(k('data/app.sqlite').classes.has('protected'));
    assert.ok(k('a/b/.secrets/x').classes.has('protected'));
    assert.ok(!k('data/app.db').classes.has('protected'));
  });

  test('absolute and ~ patterns match absolute paths, through symlinks too', () => {
    const k = classifier({ protectedPaths: ['~/other', join(root, 'elsewhere')] });
    assert.ok(k('~/other/x').classes.has('protected'));
    assert.ok(k('out-link/x').classes.has('protected'));
  });

  test('an empty protected pattern is refused with a clear error', () => {
    assert.throws(() => classifier({ protectedPaths: [''] }), /protected path pattern/);
  });
});
