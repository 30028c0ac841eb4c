// The floor for any MCP proxy (bench/mcp.ts, path `relay`): a process between the client and the server
// that starts the server and copies bytes both ways, parsing nothing. Whatever a proxy costs above this
// is its own work; this process's cost above a direct call is what being a separate process costs.
// Plain CommonJS with no imports beyond node's, so that its start and its hot path are as lean as node allows.
'use strict';
const { spawn } = require('node:child_process');

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node byte-relay.cjs <command> [args…]\n');
  process.exit(1);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
// The client closing its end ends the server's input; the server's exit ends the relay.
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.stdin.on('end', () => child.stdin.end());
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
