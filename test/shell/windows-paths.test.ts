// Windows paths that reach a bash tool are read as the paths they spell (words.ts windowsPath); escaped
// names that are not paths stay as bash reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell } from '../../src/shell/unwrap.ts';

const argv = (line: string): string[] => analyzeShell(line).commands[0]!.argv.map((w) => w.value);

test('.\\x and ..\\x are relative paths, drives are Git Bash absolute paths', () => {
  assert.deepEqual(argv('.\\gradlew build'), ['./gradlew', 'build']);
  assert.deepEqual(argv('.\\venv\\Scripts\\python.exe -m pytest'), ['./venv/Scripts/python.exe', '-m', 'pytest']);
  assert.deepEqual(argv('"..\\tools\\run.cmd"'), ['../tools/run.cmd']);
  assert.deepEqual(argv('ls "C:\\Users\\me\\My Project"'), ['ls', '/c/Users/me/My Project']);
  assert.deepEqual(argv('ls C:\\Users\\me'), ['ls', '/c/Users/me']);
  assert.deepEqual(argv('ls D:/work'), ['ls', '/d/work']);
});

test('escapes that are not Windows paths keep bash\'s reading', () => {
  assert.deepEqual(argv('r\\m -rf build'), ['rm', '-rf', 'build']);
  assert.deepEqual(argv('\\rm x'), ['rm', 'x']);
  assert.deepEqual(argv('grep .\\#'), ['grep', '.#']);
  assert.deepEqual(argv('echo "a\\b"'), ['echo', 'a\\b']);
  assert.deepEqual(argv('ls "$X\\y"').slice(0, 1), ['ls']);
});
