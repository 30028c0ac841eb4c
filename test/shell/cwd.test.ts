// Tests for shell/cwd.ts: the directory each command runs in (cd in its own subshell scope, sh -c, env -C,
// sudo -D, pushd/popd) and the links earlier commands of the line made.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { basenameOfHome } from '../../src/shell/cwd.ts';

/** The WorkDir dir of the first command whose text is `text` (undefined: the call's cwd, no links). */
function dirOf(line: string, text: string): string | null | undefined {
  const a = analyzeShell(line);
  assert.equal(a.status, 'ok');
  const c = a.commands.find((x) => x.text === text);
  assert.ok(c, `no command ${text} in ${line}`);
  return c.cwd === undefined ? undefined : c.cwd.dir;
}

function linksOf(line: string, text: string): { link: string | null; target: string | null }[] {
  const c = analyzeShell(line).commands.find((x) => x.text === text);
  assert.ok(c);
  return (c.cwd?.links ?? []).map((l) => ({ link: l.link, target: l.target }));
}

describe('cd moves the commands after it in the same shell', () => {
  test('a cd chain composes, relative to the call cwd', () => {
    assert.equal(dirOf('cd ~ && rm -rf *', 'rm -rf *'), '~');
    assert.equal(dirOf('cd ..; cd ..; rm -rf *', 'rm -rf *'), '../..');
    assert.equal(dirOf('cd ~ && cd .ssh && cat id_rsa', 'cat id_rsa'), '~/.ssh');
    assert.equal(dirOf('cd src && rm -rf build', 'rm -rf build'), 'src');
    assert.equal(dirOf('cd / ; cd etc; ls', 'ls'), '/etc');
  });
  test('bare cd and $HOME go home; HOME given to cd is followed; a reassigned HOME is dynamic', () => {
    assert.equal(dirOf('cd && ls', 'ls'), '~');
    assert.equal(dirOf('cd "$HOME/.ssh" && ls', 'ls'), '~/.ssh');
    assert.equal(dirOf('HOME=/etc cd && ls', 'ls'), '/etc');
    assert.equal(dirOf('export HOME=/x; cd ~ && ls', 'ls'), null);
  });
  test('what cannot be known is dynamic (null), never the project', () => {
    assert.equal(dirOf('cd "$d" && rm -rf *', 'rm -rf *'), null);
    assert.equal(dirOf('cd $(mktemp -d) && ls', 'ls'), null);
    assert.equal(dirOf('cd - && ls', 'ls'), null);
    assert.equal(dirOf('cd src/* && ls', 'ls'), null);
    // bash looks relative names up in CDPATH first: once the line sets it, such a cd is unknown.
    assert.equal(dirOf('CDPATH=~ ; cd .ssh && ls', 'ls'), null);
    assert.equal(dirOf('CDPATH=~ ; cd ./src && ls', 'ls'), './src');
  });
  test('a cd in a subshell, pipeline part, substitution, background job or sh -c does not leak out', () => {
    assert.equal(dirOf('(cd ~ && ls); rm -rf build', 'rm -rf build'), undefined);
    assert.equal(dirOf('(cd ~ && ls); rm -rf build', 'ls'), '~');
    assert.equal(dirOf("sh -c 'cd /tmp && ls'; rm -rf build", 'rm -rf build'), undefined);
    assert.equal(dirOf("sh -c 'cd /tmp && ls'; rm -rf build", 'ls'), '/tmp');
    assert.equal(dirOf('cd / | cat; rm -rf x', 'rm -rf x'), undefined);
    assert.equal(dirOf('echo $(cd /; pwd); rm -rf x', 'rm -rf x'), undefined);
    assert.equal(dirOf('cd / & rm -rf x', 'rm -rf x'), undefined);
    assert.equal(dirOf('sudo cd /; rm -rf x', 'rm -rf x'), undefined);
  });
  test('builtin cd and command cd move the shell; a cd in a function body is not followed', () => {
    assert.equal(dirOf('builtin cd .. && rm -rf build', 'rm -rf build'), '..');
    assert.equal(dirOf('command cd / && rm -rf *', 'rm -rf *'), '/');
    assert.equal(dirOf('f() { cd /; }; rm -rf x', 'rm -rf x'), undefined);
  });
  test('pushd and popd keep a stack', () => {
    assert.equal(dirOf('pushd /etc; ls; popd; rm -rf x', 'ls'), '/etc');
    assert.equal(dirOf('pushd /etc; ls; popd; rm -rf x', 'rm -rf x'), undefined);
    assert.equal(dirOf('popd; rm -rf x', 'rm -rf x'), null);
  });
  test('a top-level cd reaches into sh -c, and a cd in sh -c moves the rest of that string', () => {
    assert.equal(dirOf("cd ~ && sh -c 'rm -rf *'", 'rm -rf *'), '~');
    assert.equal(dirOf("sh -c 'cd /etc; echo x > cron.d/y'", 'echo x > cron.d/y'), '/etc');
  });
});

describe('wrappers that set the directory', () => {
  test('env -C / --chdir, sudo -D / --chdir', () => {
    assert.equal(dirOf('env -C ~ cat .aws/credentials', 'cat .aws/credentials'), '~');
    assert.equal(dirOf('env --chdir=/etc cat passwd', 'cat passwd'), '/etc');
    assert.equal(dirOf('env -i -C /etc cat passwd', 'cat passwd'), '/etc');
    assert.equal(dirOf('sudo -D / rm -rf *', 'rm -rf *'), '/');
    assert.equal(dirOf('sudo --chdir /etc ls', 'ls'), '/etc');
    assert.equal(dirOf('env -C "$D" ls', 'ls'), null);
  });
  test('the directory carries into strings the inner command runs, and composes with cd', () => {
    assert.equal(dirOf("env -C ~ sh -c 'cat .bashrc'", 'cat .bashrc'), '~');
    assert.equal(dirOf('cd ~ && env -C .ssh cat id_rsa', 'cat id_rsa'), '~/.ssh');
    assert.equal(dirOf('timeout 5 env -C / ls', 'ls'), '/');
  });
  test('plain wrappers change nothing', () => {
    assert.equal(dirOf('env FOO=1 ls', 'ls'), undefined);
    assert.equal(dirOf('sudo -u root ls', 'ls'), undefined);
  });
});

describe('links made earlier in the line', () => {
  test('ln -s, ln, cp -s, cp -l, link', () => {
    assert.deepEqual(linksOf('ln -s ~ h && echo x >> h/.bashrc', 'echo x >> h/.bashrc'), [{ link: 'h', target: '~' }]);
    assert.deepEqual(linksOf('ln ~/.bashrc b; echo x >> b', 'echo x >> b'), [{ link: 'b', target: '~/.bashrc' }]);
    assert.deepEqual(linksOf('cp -s ~/.bashrc n; echo x >> n', 'echo x >> n'), [{ link: 'n', target: '~/.bashrc' }]);
    assert.deepEqual(linksOf('cp -l ~/.bashrc n; echo x >> n', 'echo x >> n'), [{ link: 'n', target: '~/.bashrc' }]);
    assert.deepEqual(linksOf('link ~/.bashrc b; echo x >> b', 'echo x >> b'), [{ link: 'b', target: '~/.bashrc' }]);
    assert.deepEqual(linksOf('cp ~/.bashrc n; echo x >> n', 'echo x >> n'), []);
  });
  test('a directory name takes the target\'s basename; -T and -t', () => {
    assert.deepEqual(linksOf('ln -s ~ . && ls', 'ls'), [{ link: `./${basenameOfHome}`, target: '~' }]);
    assert.deepEqual(linksOf('ln -s /etc/cron.d x/ && ls', 'ls'), [{ link: 'x/cron.d', target: '/etc/cron.d' }]);
    assert.deepEqual(linksOf('ln -st d ~/.bashrc && ls', 'ls'), [{ link: 'd/.bashrc', target: '~/.bashrc' }]);
    assert.deepEqual(linksOf('ln -sT ~/.bashrc rc && ls', 'ls'), [{ link: 'rc', target: '~/.bashrc' }]);
  });
  test('a symlink\'s relative target is read from the link\'s directory; links follow the cwd of their command', () => {
    assert.deepEqual(linksOf('ln -s ../shared lib/s && ls', 'ls'), [{ link: 'lib/s', target: 'lib/../shared' }]);
    assert.deepEqual(linksOf('cd ~ && ln -s .ssh s && ls', 'ls'), [{ link: '~/s', target: '~/.ssh' }]);
  });
  test('a link made in a subshell still exists afterwards; a later command does not see a link made after it', () => {
    assert.deepEqual(linksOf('(ln -s ~ h); echo x >> h/.bashrc', 'echo x >> h/.bashrc'), [{ link: 'h', target: '~' }]);
    assert.deepEqual(linksOf('echo x >> h/.bashrc; ln -s ~ h', 'echo x >> h/.bashrc'), []);
  });
  test('a line without cd, chdir wrappers or links gets no cwd at all', () => {
    for (const c of analyzeShell('git status && npm test | tee out.log').commands) assert.equal(c.cwd, undefined);
  });
});
