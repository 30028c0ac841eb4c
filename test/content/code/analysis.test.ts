import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzePython } from '../../../src/content/code/python.ts';
import { analyzeJavaScript } from '../../../src/content/code/javascript.ts';

const kinds = (fx: { effects: { kind: string }[] }): string[] => fx.effects.map((e) => e.kind);

describe('Python capability analysis', () => {
  test('aliases, from-imports, __import__ and getattr reach the same function', () => {
    for (const code of [
      "import subprocess as sp; sp.call('rm -rf ~', shell=True)",
      "from os import system as s; s('rm -rf ~')",
      "__import__('os').system('rm -rf ~')",
      "import os; getattr(os, 'sys' + 'tem')('rm -rf ~')",
      "from os import *; system('rm -rf ~')",
      "import os; exec(\"os.system('rm -rf ~')\")",
      "import os; f = lambda: os.system('rm -rf ~'); f()",
      "import os; print(f'{os.system(\"rm -rf ~\")}')",
    ]) assert.deepEqual(analyzePython(code).effects.map((e) => (e as { line?: string }).line), ['rm -rf ~'], code);
  });
  test('list argv and shell=True', () => {
    assert.deepEqual(analyzePython("import subprocess; subprocess.run(['rm', '-rf', '/'])").effects[0], { kind: 'run', argv: ['rm', '-rf', '/'], line: null, via: 'subprocess.run' });
  });
  test('literal paths resolve through expanduser, join, Path and /', () => {
    const p = (code: string) => (analyzePython(code).effects.find((e) => e.kind === 'remove') as { path: string | null }).path;
    assert.equal(p("import shutil, os; shutil.rmtree(os.path.expanduser('~'))"), '~');
    assert.equal(p("import os; home = os.path.expanduser('~'); os.remove(os.path.join(home, '.bashrc'))"), '~/.bashrc');
    assert.equal(p("from pathlib import Path; import shutil; shutil.rmtree(Path.home() / '.ssh')"), '~/.ssh');
    assert.equal(p("import os, shutil; shutil.rmtree(os.environ['HOME'] + '/x')"), '~/x');
  });
  test('a value that depends on control flow is unknown', () => {
    const fx = analyzePython("import os, shutil\np = 'build' if 0 else os.path.expanduser('~')\nshutil.rmtree(p)");
    assert.equal((fx.effects[0] as { path: string | null }).path, null);
    assert.ok(fx.unknowns.length > 0);
  });
  test('the environment: one variable by name vs a dump; `in` and env= are not dumps', () => {
    assert.deepEqual(analyzePython("import os; print(os.environ.get('HOME'))").effects, [{ kind: 'env', name: 'HOME', via: 'HOME' }]);
    assert.deepEqual(kinds(analyzePython('import os; print(os.environ)')), ['env']);
    assert.deepEqual(kinds(analyzePython("import os, subprocess\nif 'CI' in os.environ: pass\nsubprocess.run(['ls'], env={**os.environ})")), ['run']);
  });
  test('network, with and without data', () => {
    assert.deepEqual(analyzePython("import requests; requests.get('https://pypi.org/x')").effects[0], { kind: 'network', url: 'https://pypi.org/x', send: false, via: 'requests.get' });
    assert.equal((analyzePython("import requests; requests.post('https://x.example', data='a')").effects[0] as { send: boolean }).send, true);
  });
  test('dynamic code and reflection are unknowns', () => {
    assert.ok(analyzePython('exec(input())').unknowns.length > 0);
    assert.ok(analyzePython('print(().__class__.__bases__[0].__subclasses__())').unknowns.length > 0);
    assert.ok(analyzePython("import importlib; importlib.import_module(input())").unknowns.length > 0);
  });
  test('benign near-misses do nothing', () => {
    for (const code of ['print(1)', 'import sys; print(sys.version)', "s = 'os.system(1)'; print(s)", '# os.system("x")\nprint(2)', 'import ast\nprint(ast.dump(ast.parse("x=1")))']) {
      const fx = analyzePython(code);
      assert.deepEqual([fx.effects, fx.unknowns], [[], []], code);
    }
  });
});

describe('JavaScript capability analysis', () => {
  test('require, destructuring, namespace and named imports, computed names', () => {
    for (const code of [
      "const {execSync: x} = require('child_process'); x('rm -rf ~')",
      "import * as cp from 'node:child_process'; cp.execSync('rm -rf ~')",
      "import { execSync as run } from 'child_process'; run('rm -rf ~')",
      "require('child' + '_process').execSync('rm -rf ~')",
      "require('child_process')['exec' + 'Sync']('rm -rf ~')",
      "const cp = await import('node:child_process'); cp.execSync('rm -rf ~')",
    ]) assert.deepEqual(analyzeJavaScript(code).effects.map((e) => (e as { line?: string }).line), ['rm -rf ~'], code);
  });
  test('paths through os.homedir, concatenation and templates', () => {
    const p = (code: string) => (analyzeJavaScript(code).effects.find((e) => e.kind === 'remove') as { path: string | null; recursive: boolean });
    assert.deepEqual(p("require('fs').rmSync(require('os').homedir(), {recursive: true})"), { kind: 'remove', path: '~', recursive: true, dir: false, via: 'fs.rm' });
    assert.equal(p("const os = require('os'); require('fs').promises.rm(`${os.homedir()}/.ssh`, {recursive: true})").path, '~/.ssh');
  });
  test('dynamic module names, eval and reflection are unknowns', () => {
    assert.ok(analyzeJavaScript("const m = 'child' + process.argv[1]; require(m)").unknowns.length > 0);
    assert.ok(analyzeJavaScript('eval(process.argv[1])').unknowns.length > 0);
    assert.ok(analyzeJavaScript("[].constructor.constructor('return process')()").unknowns.length > 0);
  });
  test('process.env whole vs one variable', () => {
    assert.deepEqual(kinds(analyzeJavaScript('console.log(process.env)')), ['env']);
    assert.deepEqual(analyzeJavaScript('console.log(process.env.HOME)').effects, [{ kind: 'env', name: 'HOME', via: 'HOME' }]);
  });
  test('benign near-misses do nothing', () => {
    for (const code of ['console.log(1)', 'console.log(process.versions.node)', "const re = /require\\('child_process'\\)/; console.log(re.test('x'))", 'console.log([1,2].map(x => x / 2))']) {
      const fx = analyzeJavaScript(code);
      assert.deepEqual([fx.effects, fx.unknowns], [[], []], code);
    }
  });
});
