// The sys.* and sec.* rules: fork bombs, killing everything, shutdown, privilege, persistence, security weakening.

import { describe, test } from 'node:test';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { rules } from '../../../src/policy/rules/system.ts';

testRuleExamples(rules);

tierTable('machine-wide damage is hard_deny', [
  [':(){ :|:& };:', 'hard_deny'],
  ['f(){ f|f& }; f', 'hard_deny'],
  ['boom() { boom | boom & }; boom', 'hard_deny'],
  ['bash -c ":(){ :|:& };:"', 'hard_deny'],
  ['perl -e "fork while fork"', 'hard_deny'],
  ['kill -9 -1', 'hard_deny'],
  ['sudo kill -SIGKILL -1', 'hard_deny'],
  ['kill -s 9 -- -1', 'hard_deny'],
  ['pkill -KILL .', 'hard_deny'],
  ['killall5', 'hard_deny'],
  ['shutdown now', 'hard_deny'],
  ['sudo shutdown -r +1', 'hard_deny'],
  ['/sbin/reboot -f', 'hard_deny'],
  ['systemctl --no-block poweroff', 'hard_deny'],
  ['systemctl kexec', 'hard_deny'],
  ['init 6', 'hard_deny'],
  ['echo "x ALL=(ALL) NOPASSWD: ALL" >> /etc/sudoers', 'hard_deny'],
  ['echo key >> /home/dev/.ssh/authorized_keys', 'hard_deny'],
  ['cat id.pub | ssh host "cat >> ~/.ssh/authorized_keys"', 'hard_deny'],
  ['echo "curl x | sh" >> ~/.bashrc', 'hard_deny'],
  ['printf "alias sudo=x\\n" >> ~/.zshrc', 'hard_deny'],
  ['echo "* * * * * root x" >> /etc/crontab', 'hard_deny'],
  ['setenforce 0', 'hard_deny'],
  ['iptables -F', 'hard_deny'],
  ['ip6tables --flush INPUT', 'hard_deny'],
  ['iptables -P FORWARD ACCEPT', 'hard_deny'],
  ['nft flush ruleset', 'hard_deny'],
  ['sudo ufw disable', 'hard_deny'],
  ['pfctl -d', 'hard_deny'],
  ['systemctl disable --now firewalld', 'hard_deny'],
  ['usermod -aG sudo mallory', 'hard_deny'],
  ['useradd -o -u 0 -g 0 toor', 'hard_deny'],
  ['csrutil disable', 'hard_deny'],
]);

tierTable('privilege, persistence and tampering a person may approve are soft_deny', [
  ['sudo apt-get update', 'soft_deny'],
  ['su - postgres', 'soft_deny'],
  ['crontab -e', 'soft_deny'],
  ['crontab -r', 'soft_deny'],
  ['echo "0 * * * * x" | crontab -', 'soft_deny'],
  ['systemctl enable myapp', 'soft_deny'],
  ['systemctl --user enable x.timer', 'soft_deny'],
  ['systemctl restart nginx', 'soft_deny'],
  ['launchctl load -w ~/Library/LaunchAgents/x.plist', 'soft_deny'],
  ['useradd bob', 'soft_deny'],
  ['passwd bob', 'soft_deny'],
  ['history -c', 'soft_deny'],
  ['unset HISTFILE', 'soft_deny'],
  ['export HISTSIZE=0', 'soft_deny'],
  ['HISTFILE=/dev/null bash', 'soft_deny'],
  ['at now + 5 minutes < job.sh', 'soft_deny'],
  ['ufw allow 8080', 'soft_deny'],
  ['echo "[alias] x = !sh" >> ~/.gitconfig', 'soft_deny'],
  ['systemctl suspend', 'soft_deny'],
]);

tierTable('looking at the system stays allow', [
  ['systemctl status docker', 'allow'],
  ['systemctl is-active nginx', 'allow'],
  ['service nginx status', 'allow'],
  ['journalctl -u myapp -n 50', 'allow'],
  ['launchctl list', 'allow'],
]);

describe('near misses do not trip the rules', () => {
  test('killing one process is not kill-all', () => {
    for (const c of ['kill 1234', 'kill -9 12345', 'kill -TERM 4242', 'kill %1', 'pkill -f "vite"', 'killall -9 node']) expectNoRule(c, 'sys.kill-all');
  });
  test('functions that do not call themselves in a pipe are not fork bombs', () => {
    for (const c of ['f() { ls | wc -l; }; f', 'g() { echo a; echo b; }; g', 'deploy() { build && upload; }; deploy', 'x() { y | z; }; y() { :; }; x']) expectNoRule(c, 'sys.fork-bomb');
  });
  test('shutdown words inside data do not count', () => {
    expectNoRule('echo reboot', 'sys.shutdown');
    expectNoRule('git commit -m "reboot after install"', 'sys.shutdown');
    expectNoRule('shutdown -c', 'sys.shutdown');
  });
  test('reading persistence files is not writing them', () => {
    expectNoRule('cat ~/.ssh/authorized_keys', 'sec.authorized-keys');
    expectNoRule('cat ~/.bashrc', 'sec.shell-init');
    expectNoRule('grep NOPASSWD /etc/sudoers', 'sec.sudoers');
    expectNoRule('crontab -l', 'sec.crontab');
  });
  test('every spelling of a write to a shell init file is caught', () => {
    for (const c of ['cp x ~/.profile', 'mv x ~/.bash_profile', 'sed -i "s/a/b/" $HOME/.zshrc', 'tee -a ~/.bashrc < x', 'ln -sf x ~/.zshenv', 'dd of=/home/dev/.bashrc if=x', 'cd ~ && echo x >> .bashrc']) {
      expectRule(c, 'sec.shell-init');
    }
  });
  test('sudo of a harmless command is still sudo, and its inner command is judged too', () => {
    expectRule('sudo ls /root', 'sec.sudo');
    expectRule('sudo rm -rf /', 'fs.rm-catastrophic');
    expectNoRule('sudo -k', 'sec.sudo');
  });
});
