import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeShell } from '../../src/shell/unwrap.ts';
import { parseShell } from '../../src/shell/parse.ts';
import { argTexts, commandSlots, programName, staticValue, withSlots } from '../../src/shell/program.ts';
import { parseArgs } from '../../src/shell/args.ts';
import type { SimpleCommand, Word } from '../../src/shell/types.ts';

function only(src: string, index = 0): SimpleCommand {
  const a = analyzeShell(src);
  assert.equal(a.status, 'ok', `${src}: ${a.message}`);
  return a.commands[index]!;
}

function lit(v: string): Word {
  return { raw: v, value: v, literal: true, glob: false, vars: [], substitutions: [], substitutionKinds: [] };
}

function handMade(argv: string[]): SimpleCommand {
  return {
    id: 0, argv: argv.map(lit), assignments: [], redirects: [], stdin: { kind: 'tty' }, pipeTo: [],
    inSubstitution: false, inFunction: false, depth: 0, via: [], text: argv.join(' '),
  };
}

describe('command slots', () => {
  test('are invisible to JSON, spreads, key listings and deep equality', () => {
    const cmd = only('/usr/bin/RM -f x');
    assert.equal(programName(cmd), 'rm');
    assert.deepEqual(Object.keys(cmd), ['id', 'argv', 'assignments', 'redirects', 'stdin', 'pipeTo', 'inSubstitution', 'inFunction', 'depth', 'via', 'text']);
    assert.deepEqual(Object.getOwnPropertySymbols(cmd), []);
    assert.equal(JSON.stringify(cmd).includes('program'), false);
    assert.deepEqual(cmd, { ...cmd });
    assert.deepEqual(JSON.parse(JSON.stringify(cmd)), JSON.parse(JSON.stringify({ ...cmd })));
  });

  test('a copy with other words gets its own program name, not the original\'s', () => {
    const cmd = only('sudo rm -rf build');
    assert.equal(programName(cmd), 'sudo');
    const inner = { ...cmd, argv: cmd.argv.slice(1) };
    assert.equal(programName(inner), 'rm');
    assert.equal(programName(cmd), 'sudo');
    assert.notEqual(commandSlots(inner), commandSlots(cmd));
  });

  test('each command has its own slots, asked in any order', () => {
    const a = analyzeShell('ls | grep x; sudo cat f');
    const names = a.commands.map((c) => programName(c));
    assert.deepEqual(names, ['ls', 'grep', 'sudo', 'cat']);
    assert.deepEqual([...a.commands].reverse().map((c) => programName(c)), [...names].reverse());
    for (const c of a.commands) assert.equal(commandSlots(c), commandSlots(c));
    assert.equal(new Set(a.commands.map((c) => commandSlots(c))).size, a.commands.length);
  });

  test('hand-made and frozen commands get slots too', () => {
    const plain = handMade(['/bin/Cat', 'f']);
    assert.equal(programName(plain), 'cat');
    const frozen = Object.freeze(handMade(['git', 'status']));
    assert.equal(programName(frozen), 'git');
    assert.equal(commandSlots(frozen), commandSlots(frozen));
    assert.equal(programName(plain), 'cat');
  });

  test('commands unwrapped from wrappers and re-parsed strings have slots of their own', () => {
    const a = analyzeShell(`sudo bash -c 'rm -rf x; echo ok'`);
    assert.deepEqual(a.commands.map((c) => programName(c)), ['sudo', 'bash', 'rm', 'echo']);
    assert.deepEqual(a.commands.map((c) => c.id), [0, 1, 2, 3]);
  });
});

describe('argTexts', () => {
  test('is the words after the program, static values or as written', () => {
    const cmd = only(`grep -r "a b" $X 'c'$(pwd) x{1,2}`);
    assert.deepEqual(argTexts(cmd), ['-r', 'a b', '$X', 'c$(pwd)', 'x1', 'x2']);
    assert.deepEqual(argTexts(cmd), cmd.argv.slice(1).map((w) => staticValue(w) ?? w.value));
    assert.equal(argTexts(cmd), argTexts(cmd));
  });

  test('uses propagated constants, and is empty for a bare program', () => {
    const a = parseShell('d=build; rm -rf $d');
    assert.deepEqual(argTexts(a.commands[1]!), ['-rf', 'build']);
    assert.deepEqual(argTexts(only('ls')), []);
  });
});

describe('parseArgs reads a command or explicit words the same way', () => {
  test('long options with values, aliases and clusters', () => {
    const cmd = only('curl -sSLo out --header x --retry=3 --recursive http://h/');
    const spec = { shortWithValue: 'o', longWithValue: ['header'], aliases: { recursive: 'r' } };
    const fromCmd = parseArgs(cmd, spec);
    const fromWords = parseArgs(cmd.argv.slice(1), spec);
    for (const p of [fromCmd, fromWords]) {
      assert.deepEqual([...p.flags], [['s', true], ['S', true], ['L', true], ['o', 'out'], ['header', 'x'], ['retry', '3'], ['r', true]]);
      assert.deepEqual(p.operands.map((w) => w.value), ['http://h/']);
      assert.equal(p.dynamic, false);
    }
    assert.deepEqual(parseArgs(cmd, {}).flags.get('header'), true);
  });
});

test('giving a command its slots again keeps the ones it has', () => {
  const cmd = analyzeShell('rm -rf build').commands[0]!;
  const slots = commandSlots(cmd);
  assert.equal(programName(cmd), 'rm');
  assert.equal(withSlots(cmd), cmd);
  assert.equal(commandSlots(cmd), slots);
  assert.equal(slots.program, 'rm');
});
