#!/usr/bin/perl
# asimov's first stage for hook command lines: what `asimov wire` installs in front of node.
#
#   perl hook-first-stage.pl KILL_AFTER_S NODE ASIMOV_CJS hook CLIENT [ARGS...]
#
# Starting node and loading asimov costs more than the decision itself, once per tool call. This script
# starts in a few milliseconds, hands the call to the resident daemon (`asimov daemon`) over its unix socket,
# and prints the daemon's answer. It never decides anything itself: whenever anything is not exactly right (no
# daemon, a socket directory others can enter, another build, a refusal, a malformed or late reply, a daemon
# that died mid-call) it becomes `NODE ASIMOV_CJS hook …` (exec, the same process), with the standard input
# it has already read put back in front of the rest, and that decides in process as if no daemon existed.
#
# It is also the line's watchdog: alarm(KILL_AFTER_S) survives exec, so SIGALRM ends whatever this process
# has become by then; the line's `|| …` turns that into a block.
#
# It loads no module at all (not even strict: each costs a file lookup and a compile on every tool call), so
# constants the Socket, Fcntl and POSIX modules would give are written out below for the systems asimov
# supports. The test suite compiles it with -Mstrict -Mwarnings. The checks mirror bin/daemon-client.cjs.

my $MAX_STDIN = 16 * 1024 * 1024 + 1;   # one byte more than the hook runtime accepts: its size check still fires
my $DEFAULT_DEADLINE_MS = 40_000;        # src/wire/hook-command.ts DEFAULT_DEADLINE_MS
my $DEADLINE_MARGIN_MS = 100;            # kept back from the hook's deadline for the in-process path
my $MAX_REPLY = 32 * 1024 * 1024;
my $MAX_SOCKET_PATH = 100;

my ($kill_after, $node, $asimov, @args) = @ARGV;
if (!defined $asimov || $kill_after !~ /\A[0-9]{1,6}\z/ || $node !~ m{\A/} || $asimov !~ m{\A/}) {
  print STDERR "asimov: the hook's first stage was started with the wrong arguments; re-run `asimov wire`.\n";
  exit 1;
}
alarm($kill_after) if $kill_after > 0;

my $t0 = time;          # whole seconds: a coarse bound on this process's age where select gives no time left
my $waited_ms = 0;      # time spent in select, from the time it says was left

my %SYS = (
  linux  => { nonblock => 2048, einprogress => 115, eintr => 4, eagain => 11 },
  darwin => { nonblock => 4,    einprogress => 36,  eintr => 4, eagain => 35 },
);
my $sys = $SYS{$^O};

# Decides in process: becomes node, with `$data` (what was read of stdin) in front of the rest of stdin.
# `$why` tells bin/asimov.cjs what happened here (it starts a daemon when there is none).
sub in_process {
  my ($why, $data, $complete) = @_;
  $ENV{ASIMOV_FIRST_STAGE} = age_ms() . ",$why";
  if (defined $data && (length($data) > 0 || !$complete)) {
    my ($r, $w);
    pipe($r, $w) or fail("cannot make a pipe: $!");
    my $pid = fork();
    fail("cannot fork: $!") unless defined $pid;
    if ($pid == 0) {
      # The writer: feeds node what was read, then the rest. It must not hold the client's output open.
      close $r;
      close STDOUT;
      close STDERR;
      write_all($w, $data, undef) or exit 0;
      if (!$complete) {
        while (1) {
          my $got = sysread(STDIN, my $buf, 65536);
          last if !$got;
          write_all($w, $buf, undef) or last;
        }
      }
      exit 0;
    }
    close $w;
    open(STDIN, '<&', $r) or fail("cannot pass the input on: $!");
    close $r;
  }
  $SIG{PIPE} = 'DEFAULT';
  exec { $node } ($node, $asimov, @args) or fail("cannot run $node: $!", 127);   # 127: as a shell says it
}

sub fail {
  print STDERR "asimov: $_[0]\n";
  exit($_[1] // 1);
}

sub age_ms {
  my $coarse = (time - $t0 - 1) * 1000;
  my $ms = $waited_ms > $coarse ? $waited_ms : $coarse;
  return int($ms);
}

# select() for one handle, at most until the deadline; returns true when it is ready. Counts the time waited.
sub wait_for {
  my ($fh, $write, $deadline_ms) = @_;
  while (1) {
    my $left = ($deadline_ms - age_ms()) / 1000;
    return 0 if $left <= 0;
    my $bits = '';
    vec($bits, fileno($fh), 1) = 1;
    my ($n, $timeleft) = $write ? select(undef, my $wout = $bits, undef, $left) : select(my $rout = $bits, undef, undef, $left);
    $waited_ms += ($left - $timeleft) * 1000 if defined $timeleft && $timeleft >= 0 && $timeleft <= $left;
    return 1 if $n > 0;
    return 0 if $n == 0;
    return 0 if $! + 0 != $sys->{eintr};
  }
}

sub write_all {
  my ($fh, $bytes, $deadline_ms) = @_;
  my $off = 0;
  while ($off < length $bytes) {
    my $n = syswrite($fh, $bytes, length($bytes) - $off, $off);
    if (defined $n) { $off += $n; next; }
    return 0 unless $! + 0 == $sys->{eagain} || $! + 0 == $sys->{eintr};
    # Our own output without a deadline: the watchdog's alarm bounds the wait.
    return 0 unless wait_for($fh, 1, $deadline_ms // 1e12);
  }
  return 1;
}

# The socket path, as src/cli/daemon/socket-path.ts socketPathFor finds it.
sub socket_path {
  my $dir;
  my $xdg = $ENV{XDG_RUNTIME_DIR};
  if (defined $xdg && $xdg =~ m{\A/}) {
    my @st = stat $xdg;
    $dir = join_path($xdg, 'asimov') if @st && -d _ && $st[4] == $<;
  }
  if (!defined $dir) {
    my $home = (defined $ENV{HOME} && length $ENV{HOME}) ? $ENV{HOME} : (getpwuid($<))[7];
    return undef unless defined $home && length $home;
    $dir = join_path($home, '.cache', 'asimov', 'run');
  }
  my $p = join_path($dir, 'd.sock');
  $p = "/tmp/asimov-$</d.sock" if length($p) > $MAX_SOCKET_PATH;
  return $p;
}

# path.join for absolute paths: repeated and trailing slashes folded, `.` and `..` resolved.
sub join_path {
  my @out;
  for my $part (map { split m{/+} } @_) {
    next if $part eq '' || $part eq '.';
    if ($part eq '..') { pop @out; next; }
    push @out, $part;
  }
  return '/' . join('/', @out);
}

# The working directory as node's process.cwd() gives it (the physical path): /proc on Linux, else $PWD when
# it is absolute, names the same directory and has no symbolic link on the way.
sub physical_cwd {
  my @dot = stat '.';
  return undef unless @dot;
  my @candidates;
  push @candidates, readlink('/proc/self/cwd') if $^O eq 'linux';
  push @candidates, $ENV{PWD} if defined $ENV{PWD};
  for my $c (@candidates) {
    next unless defined $c && $c =~ m{\A/} && $c !~ m{(?:\A|/)\.\.?(?:/|\z)} && $c !~ m{//};
    my @st = stat $c;
    next unless @st && $st[0] == $dot[0] && $st[1] == $dot[1];
    my $path = '';
    my $linked = 0;
    for my $part (grep { length } split m{/}, $c) {
      $path .= "/$part";
      if (-l $path) { $linked = 1; last; }
    }
    next if $linked;
    $c =~ s{/\z}{} if length($c) > 1;
    return $c;
  }
  return undef;
}

sub build_id {
  my $file = join_path($asimov, '..', '..', 'dist', 'cli.cjs');
  open(my $fh, '<', $file) or return undef;
  my $n = sysread($fh, my $head, 100);
  close $fh;
  return ($n && $head =~ m{\A/\*asimov-build:([0-9a-f-]+)\*/}) ? $1 : undef;
}

sub deadline_ms {
  my $raw;
  for (my $i = 0; $i < @args; $i++) {
    last if $args[$i] eq '--';
    if ($args[$i] eq '--deadline-ms') { $raw = $args[$i + 1]; }
    elsif ($args[$i] =~ /\A--deadline-ms=(.*)\z/s) { $raw = $1; }
  }
  return (defined $raw && $raw =~ /\A[0-9]{1,9}\z/ && $raw > 0) ? $raw : $DEFAULT_DEADLINE_MS;
}

my $UTF8 = qr/\A(?:[\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2})*\z/;
my %ESC = ('"' => '\\"', '\\' => '\\\\', map { (chr($_) => sprintf('\\u%04x', $_)) } 0 .. 31);

# A JSON string of the bytes; undef for bytes that are not UTF-8 (node would read them otherwise than sent).
sub json_string {
  my $s = $_[0];
  return undef if $s =~ /[\x80-\xFF]/ && $s !~ $UTF8;
  $s =~ s/(["\\\x00-\x1F])/$ESC{$1}/g;
  return "\"$s\"";
}

sub base64 {
  my $s = pack('u', $_[0]);
  $s =~ s/^.//mg;
  $s =~ tr/\n//d;
  $s =~ tr|` -_|AA-Za-z0-9+/|;
  my $pad = (3 - length($_[0]) % 3) % 3;
  substr($s, -$pad) = '=' x $pad if $pad;
  return $s;
}

# Everything up to end of input, MAX_STDIN bytes or the deadline: (data, complete).
sub read_stdin {
  my ($deadline_ms) = @_;
  my $data = '';
  while (length($data) < $MAX_STDIN) {
    return ($data, 0) unless wait_for(\*STDIN, 0, $deadline_ms);
    my $got = sysread(STDIN, $data, 65536, length $data);
    if (!defined $got) {
      next if $! + 0 == $sys->{eintr} || $! + 0 == $sys->{eagain};
      return ($data, 0);   # unreadable: the in-process path reports it
    }
    last if $got == 0;
  }
  return ($data, 1);
}

sub request_json {
  my ($build, $cwd, $stdin) = @_;
  my @parts;
  for my $a (@args) { my $j = json_string($a); return undef unless defined $j; push @parts, $j; }
  my $argv = join(',', @parts);
  my @env;
  for my $k (sort keys %ENV) {
    my ($jk, $jv) = (json_string($k), json_string($ENV{$k}));
    return undef unless defined $jk && defined $jv;
    push @env, "$jk:$jv";
  }
  my $jcwd = json_string($cwd);
  return undef unless defined $jcwd;
  return '{"v":1,"op":"run","reply":"bytes","build":' . json_string($build) . ',"argv":[' . $argv . '],"cwd":' . $jcwd
    . ',"env":{' . join(',', @env) . '},"age":' . age_ms() . ',"stdin":"' . base64($stdin) . '"}';
}

# One request, one reply over the socket; the reply's body, or undef.
sub ask {
  my ($path, $body, $deadline_ms) = @_;
  my $sock;
  socket($sock, 1, 1, 0) or return undef;                     # PF_UNIX, SOCK_STREAM
  my $flags = fcntl($sock, 3, 0);                              # F_GETFL
  return undef unless defined $flags;
  fcntl($sock, 4, $flags | $sys->{nonblock}) or return undef;  # F_SETFL
  my $addr = $^O eq 'linux' ? pack('S a108', 1, $path) : pack('C C a104', 106, 1, $path);
  if (!connect($sock, $addr)) {
    return undef unless $! + 0 == $sys->{einprogress} && wait_for($sock, 1, $deadline_ms);
  }
  write_all($sock, pack('N', length $body) . $body, $deadline_ms) or return undef;
  my $got = '';
  my $want;
  while (!defined $want || length($got) < 4 + $want) {
    return undef unless wait_for($sock, 0, $deadline_ms);
    my $n = sysread($sock, $got, 65536, length $got);
    if (!defined $n) {
      next if $! + 0 == $sys->{eagain} || $! + 0 == $sys->{eintr};
      return undef;
    }
    return undef if $n == 0;   # closed without a whole reply: the daemon died or gave up
    if (!defined $want && length($got) >= 4) {
      $want = unpack('N', $got);
      return undef if $want > $MAX_REPLY;
    }
  }
  close $sock;
  return substr($got, 4, $want);
}

# --- main ---

my $mode = $ENV{ASIMOV_DAEMON} // '';
in_process('off') if $mode eq 'off' || $mode eq '0' || !defined $sys;
$SIG{PIPE} = 'IGNORE';   # a daemon that hangs up is a failed request, not a dead process

my $socket = socket_path();
in_process('absent') unless defined $socket;
my $dir = $socket;
$dir =~ s{/[^/]*\z}{};
my @d = lstat $dir;
in_process(@d ? 'unsafe' : 'absent') unless @d && -d _ && $d[4] == $< && ($d[2] & 077) == 0;
my @s = lstat $socket;
in_process('absent') unless @s;
in_process('unsafe') unless -S _ && $s[4] == $<;
my $build = build_id();
in_process('nobuild') unless defined $build;
my $cwd = physical_cwd();
in_process('cwd') unless defined $cwd;

my $deadline = deadline_ms() - $DEADLINE_MARGIN_MS;
my ($stdin, $complete) = read_stdin($deadline);
in_process('slow-input', $stdin, 0) unless $complete;
my $request = request_json($build, $cwd, $stdin);
in_process('encoding', $stdin, 1) unless defined $request;
my $reply = ask($socket, $request, $deadline);
in_process('no-reply', $stdin, 1) unless defined $reply;

# 'r', the exit code, the length of stdout, stdout, then stderr; 's' (another build) and anything else: no.
if (length($reply) >= 6 && substr($reply, 0, 1) eq 'r') {
  my ($code, $out_len) = unpack('x C N', $reply);
  if (6 + $out_len <= length $reply) {
    write_all(\*STDOUT, substr($reply, 6, $out_len), undef);
    write_all(\*STDERR, substr($reply, 6 + $out_len), undef);
    exit $code;
  }
}
in_process(substr($reply, 0, 1) eq 's' ? 'stale' : 'refused', $stdin, 1);
