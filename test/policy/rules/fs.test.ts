// The fs and dev.* rules: destruction, writes outside the project or to the system, permissions, devices.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { exampleFindings } from '../../../src/policy/examples.ts';
import { recommended } from '../../../src/policy/rules/index.ts';
import { rules } from '../../../src/policy/rules/fs.ts';

// fs.write-protected needs protected paths, which the shared example machine does not have; it is checked below.
testRuleExamples(rules.filter((r) => r.id !== 'fs.write-protected'));

describe('fs.write-protected', () => {
  const POLICY = { rules: recommended };
  const opts = { protectedPaths: ['/home/dev/project/migrations/**'] };
  test('its match examples trigger it when migrations/ is protected', () => {
    const rule = rules.find((r) => r.id === 'fs.write-protected')!;
    for (const ex of rule.examples.match) {
      assert.ok(exampleFindings(ex, POLICY, opts).findings.some((f) => f.rule === 'fs.write-protected'), String(ex));
    }
    for (const ex of rule.examples.notMatch) {
      assert.ok(!exampleFindings(ex, POLICY, opts).findings.some((f) => f.rule === 'fs.write-protected'), String(ex));
    }
  });
  test('rm, mv and sed -i of a protected file are caught too', () => {
    for (const c of ['rm migrations/001.sql', 'mv migrations/001.sql /tmp/', 'sed -i s/a/b/ migrations/002.sql']) {
      assert.ok(exampleFindings(c, POLICY, opts).findings.some((f) => f.rule === 'fs.write-protected'), c);
    }
  });
});

// A flag listed as taking a value swallowed the file after it, so the write went unseen (found in review).
tierTable('a flag never hides the file a tool writes', [
  ['xxd -C notes.txt ~/.bashrc', 'hard_deny'],
  ['zip -T ~/.bashrc notes.txt', 'hard_deny'],
  ['split -d notes.txt ~/.ssh/authorized_keys', 'hard_deny'],
  ['dos2unix -m -n notes.txt ~/.bashrc', 'hard_deny'],
]);

// A link made and written through in one line: nothing exists to resolve when the line is checked (found in
// review: allowed before as file operations in the project). The write through the link now gets the direct
// spelling's tier (shell/cwd.ts follows links made earlier in the line): `echo y >> ~/.bashrc` is hard_deny.
tierTable('a link to a sensitive file is never an everyday file operation', [
  ['ln -s ~/.bashrc x && echo y >> x', 'hard_deny'],
  ['ln ~/.bashrc notes.txt', 'soft_deny'],
  ['ln -sf ~/.ssh/authorized_keys keys && cat key.pub >> keys', 'hard_deny'],
  ['ln -s ../shared/config.js config.js', 'allow'],
]);

tierTable('catastrophic removal is hard_deny however it is spelled', [
  ['rm -rf /', 'hard_deny'],
  // A trailing slash after the glob names the same directories (found in review: soft before).
  ['rm -rf /home/*/', 'hard_deny'],
  ['rm -rf /home/*/.', 'hard_deny'],
  ['rm -rf ~/*/', 'hard_deny'],
  ['rm -r -f /', 'hard_deny'],
  ['rm -fr /', 'hard_deny'],
  ['rm --recursive --force /', 'hard_deny'],
  ['rm -Rf /', 'hard_deny'],
  ['rm / -rf', 'hard_deny'],
  ['rm -rf -- /', 'hard_deny'],
  ['/bin/rm -rf /', 'hard_deny'],
  ['/usr/bin/RM -RF /', 'hard_deny'],
  ['"rm" -rf /', 'hard_deny'],
  ['r\\m -rf /', 'hard_deny'],
  ['{rm,-rf,/}', 'hard_deny'],
  ['sudo rm -rf /', 'hard_deny'],
  ['sudo -u root rm -rf /*', 'hard_deny'],
  ['bash -c "rm -rf /"', 'hard_deny'],
  ['sh -c \'rm -rf ~\'', 'hard_deny'],
  ['eval "rm -rf /"', 'hard_deny'],
  ['timeout 5 rm -rf /', 'hard_deny'],
  ['env X=1 rm -rf /', 'hard_deny'],
  ['nohup rm -rf / &', 'hard_deny'],
  ['xargs rm -rf / < /dev/null', 'hard_deny'],
  ['echo hi; rm -rf /', 'hard_deny'],
  ['true && rm -rf ~', 'hard_deny'],
  ['rm -rf ~/*', 'hard_deny'],
  ['rm -rf $HOME', 'hard_deny'],
  ['rm -rf "${HOME}"', 'hard_deny'],
  ['rm -rf /home/dev', 'hard_deny'],
  ['rm -rf /home', 'hard_deny'],
  ['rm -rf /root', 'hard_deny'],
  ['rm -rf /etc', 'hard_deny'],
  ['rm -rf /usr/lib', 'hard_deny'],
  ['rm -rf /var/log', 'hard_deny'],
  ['rm -rf /boot', 'hard_deny'],
  ['rm -rf /tmp/../etc', 'hard_deny'],
  ['rm -rf ../..', 'hard_deny'],
  ['rm -rf ..', 'hard_deny'],
  ['cd / && rm -rf *', 'hard_deny'],
  ['cd ~; rm -rf *', 'hard_deny'],
  ['rm -rf --no-preserve-root /', 'hard_deny'],
  ['rm --no-preserve-root -rf /x', 'hard_deny'],
  ['rm -rf /$X', 'hard_deny'],
  ['rm -f /etc/passwd', 'hard_deny'],
  ['rm /etc/hosts', 'hard_deny'],
  ['rm -rf /dev', 'hard_deny'],
  ['ssh host rm -rf /', 'hard_deny'],
  ['find / -delete', 'hard_deny'],
  ['find /etc -name "*.conf" -exec rm {} \\;', 'hard_deny'],
  ['find /var -type f | xargs rm -f', 'hard_deny'],
]);

tierTable('removal that a person should see is soft_deny', [
  ['rm -rf ~/Documents', 'soft_deny'],
  ['rm -rf ../sibling', 'soft_deny'],
  ['rm -rf src', 'soft_deny'],
  ['rm -rf .', 'soft_deny'],
  ['rm -rf ./', 'soft_deny'],
  ['rm -rf *', 'soft_deny'],
  ['rm -rf .git', 'soft_deny'],
  ['rm -rf "$DIR"', 'soft_deny'],
  ['rm -rf ${BUILD}/', 'soft_deny'],
  ['rm -rf /tmp', 'soft_deny'],
  ['rm ~/notes.txt', 'soft_deny'],
  ['find . -delete', 'soft_deny'],
  ['find ~ -name "*.log" -delete', 'soft_deny'],
  ['find "$X" -name "*.tmp" -delete', 'soft_deny'],
  ['ls | xargs rm -rf', 'soft_deny'],
  ['shred -u notes.txt', 'soft_deny'],
  ['truncate -s 0 ~/app.log', 'soft_deny'],
  ['rsync -a --delete src/ ~/backup/', 'soft_deny'],
  ['chmod -R 755 ~/Documents', 'soft_deny'],
  ['chmod 777 run.sh', 'soft_deny'],
  ['chmod u+s bin/helper', 'soft_deny'],
  ['echo x > ~/notes.txt', 'soft_deny'],
  ['cp .env.example .env', 'soft_deny'],
]);

tierTable('other destruction and devices are hard_deny', [
  ['mv important.db /dev/null', 'hard_deny'],
  ['chmod -R 777 /', 'hard_deny'],
  ['chown -R dev /etc', 'hard_deny'],
  ['chmod -R 700 ~', 'hard_deny'],
  ['echo x > /etc/hosts', 'hard_deny'],
  ['echo x | sudo tee -a /etc/hosts', 'hard_deny'],
  ['> /etc/passwd', 'hard_deny'],
  ['sed -i s/a/b/ /etc/fstab', 'hard_deny'],
  ['mkfs.ext4 /dev/sdb1', 'hard_deny'],
  ['mkfs -t xfs /dev/nvme0n1', 'hard_deny'],
  ['dd if=/dev/zero of=/dev/sda bs=1M', 'hard_deny'],
  ['dd of=/dev/disk2 if=x.img', 'hard_deny'],
  ['cat x.iso > /dev/sdb', 'hard_deny'],
  ['cp x.img /dev/sda', 'hard_deny'],
  ['wipefs --all /dev/sda', 'hard_deny'],
  ['sgdisk -Z /dev/sda', 'hard_deny'],
  ['shred /dev/sda', 'hard_deny'],
  ['rsync -a --delete /tmp/empty/ /', 'hard_deny'],
  ['truncate -s 0 /etc/passwd', 'hard_deny'],
  ['zpool destroy tank', 'hard_deny'],
]);

tierTable('everyday file work stays allow', [
  ['rm -rf node_modules', 'allow'],
  ['rm -rf node_modules dist build coverage', 'allow'],
  ['rm -rf ./dist/', 'allow'],
  ['rm -rf packages/*/node_modules', 'allow'],
  ['rm -rf .pytest_cache __pycache__', 'allow'],
  ['rm -rf target', 'allow'],
  ['rm -rf *.egg-info', 'allow'],
  ['rm -f package-lock.json', 'allow'],
  ['rm -rf package-lock.json node_modules', 'allow'],
  ['rm notes.txt', 'allow'],
  ['rm -f src/*.orig', 'allow'],
  ['rm -rf /tmp/build-1234', 'allow'],
  ['rm -rf /tmp/x /var/tmp/y', 'allow'],
  ['rm -f .git/index.lock', 'allow'],
  ['d=dist; rm -rf $d', 'allow'],
  ['find . -name node_modules -type d -prune -exec rm -rf {} +', 'allow'],
  ['find packages -maxdepth 2 -name dist -type d -exec rm -rf {} +', 'allow'],
  ['mkdir -p src/lib', 'allow'],
  ['touch src/index.ts', 'allow'],
  ['cp -r templates/ out/', 'allow'],
  ['mv src/a.ts src/b.ts', 'allow'],
  ['ln -s ../README.md docs/README.md', 'allow'],
  ['chmod +x scripts/build.sh', 'allow'],
  ['chmod -R u+w src', 'allow'],
  ['tar -xzf archive.tgz', 'allow'],
  ['tar czf /tmp/backup.tgz src', 'allow'],
  ['tar -tf archive.tgz', 'allow'],
  ['unzip -o data.zip -d data', 'allow'],
  ['sed -i "s/foo/bar/g" src/app.ts', 'allow'],
  ['sed -i.bak -e s/a/b/ README.md', 'allow'],
  ['tee -a notes.md < input.txt', 'allow'],
  ['truncate -s 0 logs/app.log', 'allow'],
  ['mkdir -p /tmp/x && cp a /tmp/x/', 'allow'],
  ['dd if=/dev/zero of=test.img bs=1M count=8', 'allow'],
  ['rsync -a src/ /tmp/src-copy/', 'allow'],
  ['rsync -a --delete public/ dist/', 'allow'],
  ['patch -p1 < fix.patch', 'allow'],
  ['gzip logs/old.log', 'allow'],
]);

// Issue 2 lists find -delete among irreversible destruction: whatever the filter, a person (or the judge) sees
// it; only build-output directories picked by exact name (node_modules, dist…) through -exec rm stay allowed.
tierTable('find deleting files is never allow', [
  ['find . -name "*.pyc" -delete', 'soft_deny'],
  ['find . -empty -delete', 'soft_deny'],
  ['find /tmp -name "x*" -delete', 'soft_deny'],
  ['find /tmp/build-1234 -depth -delete', 'soft_deny'],
  ['find build -type f -delete', 'soft_deny'],
  ['busybox find . -name "*.pyc" -delete', 'soft_deny'],
  ['find . -name "*.tmp" -exec rm -r --force {} \\;', 'soft_deny'],
  ['find . -name "*.log" | xargs rm -f', 'soft_deny'],
  ['printf "x\\n" | xargs find /tmp/cache -delete', 'soft_deny'],
  ['find . -name node_modules -delete', 'soft_deny'],
  ['find . -name node_modules -o -exec rm -rf {} +', 'soft_deny'],
  ['find . ! -name node_modules -exec rm -rf {} +', 'soft_deny'],
  ['find / -name "*.log" -delete', 'hard_deny'],
  // The whole home directory with nothing narrowing it is `rm -rf ~` by another name (found in review: soft before).
  ['find ~ -delete', 'hard_deny'],
  ['find $HOME -type f -delete', 'hard_deny'],
  ['find ~/ -mindepth 1 -exec rm -rf {} +', 'hard_deny'],
  ['find ~ -type f -exec shred {} +', 'hard_deny'],
  ['find ~ -name "*.pyc" -delete', 'soft_deny'],
  ['find ~/.cache -delete', 'soft_deny'],
]);

tierTable('find words that only look like -delete do not delete', [
  ['find . -name -delete -print', 'allow'],
  ['find . -inum -delete -print', 'allow'],
  ['find . -exec echo -delete \\; -print', 'allow'],
]);

tierTable('rm, shred and mkfs with nothing dangerous to act on', [
  ['rm', 'allow'],
  ['rm -rf 2>/dev/null', 'allow'],
  ['shred', 'allow'],
  ['mkfs.ext4 disk.img', 'allow'],
  ['mkfs.vfat -C /tmp/fat.img 1024', 'allow'],
  ['mkfs.ext4 /dev/sdb1', 'hard_deny'],
  ['rm -rf "$X"', 'soft_deny'],
]);

tierTable('project-local archive, split and conversion tools are file operations', [
  ['split -l 1000 data.csv part_', 'allow'],
  ['split data.csv', 'allow'],
  ['split data.csv /etc/cron.d/x', 'hard_deny'],
  ['split -l 10 data.csv --filter="sh -c id"', 'soft_deny'],
  ['csplit -f chunk_ notes.md "/^## /" "{*}"', 'allow'],
  ['dos2unix scripts/*.sh', 'allow'],
  ['dos2unix ~/.bashrc', 'hard_deny'],
  ['zip -r out.zip src', 'allow'],
  ['zip out.zip ~/.ssh/id_rsa', 'soft_deny'],
  ['7z x vendor.7z -ovendor', 'allow'],
  ['jar xf lib.jar', 'allow'],
  ['ar rcs libx.a a.o b.o', 'allow'],
  ['gzip -c dump.sql > dump.sql.gz', 'allow'],
  ['gzip -k logs/big.log', 'allow'],
  ['cat data | zstd -19 > data.zst', 'allow'],
  ['zstd -d archive.zst -o ~/.ssh/authorized_keys', 'hard_deny'],
  ['xz -d -c build.tar.xz | tar -x', 'allow'],
  ['gzip ~/notes.txt', 'soft_deny'],
  ['rsync -av --delete --dry-run src/ dest/', 'allow'],
  ['rsync -avn src/ host.example.net:/srv/', 'unknown'],
  ['ddrescue bad.img rescued.img rescue.map', 'allow'],
  ['ddrescue /dev/sda disk.img disk.map', 'soft_deny'],
  ['ddrescue -f disk.img /dev/sdb', 'hard_deny'],
]);

tierTable('scp behaves like cp locally, and like a download or an upload remotely', [
  ['scp user@host.example.net:logs/app.log .', 'allow'],
  ['scp -P 2222 user@host.example.net:/srv/app.log ./logs/', 'allow'],
  ['scp notes.txt /tmp/', 'allow'],
  ['scp user@host.example.net:/etc/hosts ~/.ssh/config', 'soft_deny'],
  ['scp ~/.aws/credentials ./creds', 'soft_deny'],
  ['scp build.tgz user@host.example.net:/tmp/', 'soft_deny'],
]);

describe('rules about where a write lands', () => {
  test('a redirect into a system path is fs.write-system whatever the program', () => {
    expectRule('ls > /etc/motd', 'fs.write-system');
    expectRule('cat a b >> /usr/share/x', 'fs.write-system');
    expectRule('sudo sh -c "echo x > /etc/sysctl.conf"', 'fs.write-system');
  });
  test('/dev/null, /dev/stderr and fd duplication are not writes anyone cares about', () => {
    expectNoRule('ls 2>/dev/null', 'fs.write-system');
    expectNoRule('ls >/dev/null 2>&1', 'fs.write-outside-project');
    expectNoRule('echo x >&2', 'fs.write-outside-project');
    expectNoRule('cmd &> /dev/null', 'dev.write-device');
  });
  test('a cd earlier in the line moves relative paths with it', () => {
    expectRule('cd ~ && echo x > notes.txt', 'fs.write-outside-project');
    expectRule('cd /etc; touch x', 'fs.write-system');
    expectNoRule('cd src && touch x.ts', 'fs.write-outside-project');
    expectRule('cd /tmp && rm -rf work', 'fs.rm-temp');
    expectNoRule('cd /tmp && rm -rf work', 'fs.rm-recursive');
    expectRule('cd build && rm -rf *', 'fs.rm-artifacts');
    expectRule('cd "$X" && rm -rf *', 'fs.rm-dynamic');
  });
  test('cp/mv with -t and --target-directory name the destination', () => {
    expectRule('cp -t /etc x.conf', 'fs.write-system');
    expectRule('mv --target-directory=/usr/local/bin tool', 'fs.write-system');
    expectRule('install -D -m 644 x ~/.local/share/x', 'fs.write-outside-project');
  });
  test('tar and unzip destinations and curl/wget outputs are writes', () => {
    expectRule('tar -C /etc -xf x.tar', 'fs.write-system');
    expectRule('tar xf x.tar -C ~/', 'fs.write-outside-project');
    expectRule('tar xzvfC x.tgz /usr', 'fs.write-system');
    expectRule('unzip x.zip -d /opt/app', 'fs.write-system');
    expectRule('wget -O /etc/apt/sources.list https://example.com/x', 'fs.write-system');
    expectRule('curl -sSL https://example.com/x --output ~/bin/x', 'fs.write-outside-project');
  });
  test('a write to a path only known at run time is unknown, not allowed', () => {
    expectRule('echo x > "$OUT"', 'fs.write-dynamic');
    expectRule('cp a $(mktemp -d)', 'fs.write-dynamic');
  });
  test('touching a credentials file is flagged, its template is not', () => {
    expectRule('echo SECRET=1 >> .env.local', 'fs.write-credentials');
    expectNoRule('echo SECRET= >> .env.example', 'fs.write-credentials');
  });
});

describe('chmod modes are read as chmod reads them', () => {
  test('world-writable modes in every spelling', () => {
    for (const m of ['777', '0777', '1777', '666', '002', 'o+w', 'a+w', 'a=rwx', 'ugo+rwx', 'u+x,o+w', 'go+w']) expectRule(`chmod ${m} x`, 'fs.chmod-world-writable');
    for (const m of ['755', '644', '+x', 'u+w', 'g+w', 'o-w', '=rw', '+w', '-w', 'a-w']) expectNoRule(`chmod ${m} x`, 'fs.chmod-world-writable');
  });
  test('setuid and setgid bits', () => {
    for (const m of ['4755', '2755', '6755', 'u+s', 'g+s', '+s', 'ug+s']) expectRule(`chmod ${m} x`, 'fs.chmod-setuid');
    for (const m of ['755', '1777', '+t', 'u-s']) expectNoRule(`chmod ${m} x`, 'fs.chmod-setuid');
  });
  test('-w and -x are modes, not options', () => {
    expectNoRule('chmod -w ~/x', 'fs.chmod-recursive');
    expectRule('chmod -R -w ~/x', 'fs.chmod-recursive');
  });
});

describe('the line can change what a path means', () => {
  test('a cd hidden in a wrapper still moves relative paths', () => {
    expectRule('builtin cd .. && rm -rf build', 'fs.rm-outside-project');
    expectRule('command cd / && rm -rf *', 'fs.rm-catastrophic');
  });
  test('$PWD follows an earlier cd', () => {
    expectRule('cd / && rm -rf $PWD/*', 'fs.rm-catastrophic');
  });
  test('reassigning HOME, TMPDIR or PWD makes paths built on them unknown', () => {
    expectNoRule('export TMPDIR=~; rm -rf $TMPDIR/*', 'fs.rm-temp');
    expectRule('export TMPDIR=~; rm -rf $TMPDIR/*', 'fs.rm-dynamic');
    expectRule('HOME=/etc; rm -rf ~/x', 'fs.rm-dynamic');
    expectNoRule('export PWD=/; rm -rf $PWD/src', 'fs.rm-recursive');
  });
  test('$(pwd) is $PWD', () => {
    expectRule('rm -rf "$(pwd)"', 'fs.rm-project-root');
    expectRule('cd / && rm -rf "$(pwd)"/*', 'fs.rm-catastrophic');
    expectRule('rm -rf "$(pwd)/node_modules"', 'fs.rm-artifacts');
  });
  test('${TMPDIR:-/tmp} is a temp dir either way', () => {
    expectRule('rm -rf ${TMPDIR:-/tmp}/build', 'fs.rm-temp');
  });
  test('find -exec words are the command\'s, not find\'s', () => {
    expectNoRule('find . -exec echo -delete \\; -print', 'fs.find-delete');
  });
  test('find emptying a temp root without a filter is flagged, with a filter it is not', () => {
    expectRule('find /tmp -depth -delete', 'fs.find-delete');
    expectNoRule('find /tmp -name "build-*" -delete', 'fs.rm-outside-project');
  });
  test('truncate without a size is an error and gets no allow', () => {
    expectNoRule('truncate TABLE users', 'fs.ops-in-project');
  });
});

describe('a project that lives under a directory named like build output', () => {
  const at = { cwd: '/home/dev/build/project', projectRoot: '/home/dev/build/project' };
  test('is not itself a build artefact: removing its source still needs a person', () => {
    assert.equal(exampleFindings('rm -rf src', { rules: recommended }, at).tier, 'soft_deny');
    assert.equal(exampleFindings('rm -rf dist', { rules: recommended }, at).tier, 'allow');
  });
});
