// Payload decoders and the carriers of command text: each decoder against what the real program prints (checked
// with GNU coreutils, xxd and bash 5.2 on the development machine), with malicious payloads and benign near-misses.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import {
  decodeBase32, decodeBase64, decodeHex, decodeXxdDump, decompress, echoOutput, MAX_PAYLOAD, printfOutput, reverseLines, runFilter, runProducer, trMap,
} from '../../src/content/payloads.ts';
import { arithmeticSubscriptCommands, awkCommands, gitExtCommand, makefileCommands, sedCommands } from '../../src/content/carriers.ts';

const s = (b: Buffer | null | undefined): string | null => (b == null ? null : b.toString('utf8'));

describe('decoders', () => {
  test('base64: standard, unpadded, url-safe, garbage', () => {
    assert.equal(s(decodeBase64('cm0gLXJmIH4=')), 'rm -rf ~');
    assert.equal(s(decodeBase64('cm0gLXJm\nIH4=\n')), 'rm -rf ~');
    assert.equal(s(decodeBase64('cm0gLXJmIH4')), 'rm -rf ~');
    assert.equal(s(decodeBase64('cm0gLXJmIH4gICM_Pz4', { url: true })), 'rm -rf ~  #??>');
    assert.equal(decodeBase64('cm0gLXJmIH4gICM_Pz4'), null, 'url-safe characters are invalid for base64 -d');
    assert.equal(decodeBase64('cm0=gLXJm'), null, 'data after padding');
    assert.equal(s(decodeBase64('c*m0=', { ignoreGarbage: true })), 'rm');
    assert.equal(s(decodeBase64('aGVsbG8=')), 'hello');
  });
  test('base32, hex, xxd dumps', () => {
    assert.equal(s(decodeBase32('OJWSALLSMYQH4===')), 'rm -rf ~');
    assert.equal(decodeBase32('0JWS'), null);
    assert.equal(s(decodeHex('726d 202d\n7266207e')), 'rm -rf ~');
    assert.equal(decodeHex('72zz'), null);
    assert.equal(s(decodeXxdDump('00000000: 726d 202d 7266 207e                      rm -rf ~\n')), 'rm -rf ~');
    assert.equal(decodeXxdDump('00000010: 726d  rm'), null, 'a dump that does not start at 0');
  });
  test('printf: escapes, %b, %s, %c, widths, format reuse', () => {
    assert.equal(s(printfOutput(['\\x72\\x6d -rf ~'])), 'rm -rf ~');
    assert.equal(s(printfOutput(['\\162\\155 -rf ~'])), 'rm -rf ~');
    assert.equal(s(printfOutput(['%b', '\\x72m -rf ~'])), 'rm -rf ~');
    assert.equal(s(printfOutput(['%b', '\\0162m'])), 'rm');
    assert.equal(s(printfOutput(['%s -rf %s', 'rm', '~'])), 'rm -rf ~');
    assert.equal(s(printfOutput(['x[$%s]', '(rm -rf ~)'])), 'x[$(rm -rf ~)]');
    assert.equal(s(printfOutput(['%s\\n', 'a', 'b'])), 'a\nb\n');
    assert.equal(s(printfOutput(['\\0101|%c|%5s|%-3s|%d\\n', 'hello', 'x', 'y', '42'])), '\b1|h|    x|y  |42\n');
    assert.equal(s(printfOutput(['%b', 'a\\cb', 'c'])), 'a');
    assert.equal(s(printfOutput(['\\u00e9'])), 'é');
    assert.equal(printfOutput(['%q', 'x']), null, 'conversions not modelled are unknown');
    assert.equal(s(printfOutput(['%*s|%.*s|%-*s|', '3', 'ab', '2', 'xyz', '-4', 'q'])), ' ab|xy|q   |');
    assert.equal(printfOutput(["%'d", '1']), null, 'a stray % is unknown, not printed as written');
    assert.equal(printfOutput(['-v', 'x', 'y']), null);
  });
  test('echo: -n, -e, -E and escapes', () => {
    assert.equal(s(echoOutput(['-e', '\\x72\\x6d -rf ~'])), 'rm -rf ~\n');
    assert.equal(s(echoOutput(['-e', '\\101|\\0101'])), '\\101|A\n');
    assert.equal(s(echoOutput(['\\x72'])), '\\x72\n', 'without -e escapes stay');
    assert.equal(s(echoOutput(['-n', 'a', 'b'])), 'a b');
    assert.equal(s(echoOutput(['-ne', 'a\\cb'])), 'a');
  });
  test('rev, tr, decompression', () => {
    assert.equal(s(reverseLines(Buffer.from('~ fr- mr\nab\n'))), 'rm -rf ~\nba\n');
    assert.equal(s(trMap([], ['A-Za-z', 'N-ZA-Mn-za-m'], Buffer.from('ez -es ~'))), 'rm -rf ~');
    assert.equal(s(trMap([], ['[:lower:]', '[:upper:]'], Buffer.from('ls'))), 'LS');
    assert.equal(s(trMap(['d'], ['x'], Buffer.from('rxm'))), 'rm');
    assert.equal(trMap(['c'], ['a', 'b'], Buffer.from('x')), null);
    assert.equal(trMap([], ['\\162', 'x'], Buffer.from('r')), null, 'octal escapes are not modelled');
    assert.equal(s(decompress('gzip', gzipSync(Buffer.from('rm -rf ~')))), 'rm -rf ~');
    assert.equal(decompress('gzip', Buffer.from('not gzip')), null);
    assert.equal(decompress('gzip', gzipSync(Buffer.alloc(MAX_PAYLOAD + 1, 97))), null, 'a bomb is unknown, not decoded');
  });
  test('runFilter: programs and their options; a file operand is unknown', () => {
    const b = Buffer.from('cm0gLXJmIH4=');
    assert.equal(s(runFilter('base64', ['-d'], b)?.out), 'rm -rf ~');
    assert.equal(s(runFilter('base64', ['--decode'], b)?.out), 'rm -rf ~');
    assert.equal(s(runFilter('base64', ['-D'], b)?.out), 'rm -rf ~');
    assert.equal(s(runFilter('base64', ['-di'], b)?.out), 'rm -rf ~');
    assert.equal(s(runFilter('openssl', ['base64', '-d'], b)?.out), 'rm -rf ~');
    assert.equal(s(runFilter('basenc', ['--base64url', '-d'], Buffer.from('cm0gLXJmIH4'))?.out), 'rm -rf ~');
    assert.equal(s(runFilter('xxd', ['-r', '-p'], Buffer.from('6c73'))?.out), 'ls');
    assert.equal(runFilter('base64', ['-d', 'file.b64'], b), null);
    assert.equal(runFilter('base64', [], b), undefined, 'encoding is not a decoder');
    assert.equal(runFilter('grep', ['x'], b), undefined);
    assert.deepEqual(runFilter('cat', [], b), { out: b, decodes: false });
  });
  test('runProducer says when the output was decoded rather than written', () => {
    assert.equal(runProducer('echo', ['hi'])?.decodes, false);
    assert.equal(runProducer('echo', ['-e', '\\x72m'])?.decodes, true);
    assert.equal(runProducer('printf', ['%s\\n', 'echo hi'])?.decodes, false);
    assert.equal(runProducer('printf', ['%s\\0', 'a'])?.decodes, false);
    assert.equal(runProducer('printf', ['\\x72m'])?.decodes, true);
    assert.equal(runProducer('printf', ['%s %s', 'rm', 'x'])?.decodes, true);
    assert.equal(runProducer('ls', []), undefined);
    assert.equal(runProducer('echo', ['a\\nb']), null, 'escapes without -e/-E depend on xpg_echo');
    assert.equal(runProducer('echo', ['-E', 'a\\nb'])?.out.toString(), 'a\\nb\n');
  });
});

describe('carriers', () => {
  test('makefile recipes: tab lines, `target: ; cmd`, prefixes, $$ and $(shell)', () => {
    assert.deepEqual(makefileCommands('all:; rm -rf ~\n'), ['rm -rf ~']);
    assert.deepEqual(makefileCommands('X := $(shell id)\nall:\n\t@rm -rf ~\n\t-echo $$HOME\nb:\n\ttouch y\n'), ['id', 'rm -rf ~', 'echo $HOME', 'touch y']);
    assert.deepEqual(makefileCommands('CC = gcc\n# all:; rm -rf ~\n'), []);
    assert.deepEqual(makefileCommands('build: main.c\n\t$(CC) -o app main.c\n'), ['$(CC) -o app main.c']);
  });
  test('sed: e COMMAND, bare e on a known input, s///e; plain scripts run nothing', () => {
    assert.deepEqual(sedCommands('1e rm -rf ~', null).commands, ['rm -rf ~']);
    assert.deepEqual(sedCommands('e', 'rm -rf ~\n').commands, ['rm -rf ~']);
    assert.equal(sedCommands('e', null).unknown, true);
    assert.deepEqual(sedCommands('s/.*/rm -rf ~/e', 'x\n').commands, ['rm -rf ~']);
    assert.deepEqual(sedCommands('s/x/rm/e', 'x -rf ~\n').commands, ['rm -rf ~']);
    assert.deepEqual(sedCommands('s/old/new/g', null).commands, []);
    assert.deepEqual(sedCommands('/e/p', null).commands, []);
    assert.deepEqual(sedCommands('s/e/E/g;p', null).commands, []);
  });
  test('awk: system(), print | "cmd", "cmd" | getline, literal variables', () => {
    assert.deepEqual(awkCommands('BEGIN{system("rm -rf ~")}').commands, ['rm -rf ~']);
    assert.deepEqual(awkCommands('BEGIN{system("rm" " -rf ~")}').commands, ['rm -rf ~']);
    assert.deepEqual(awkCommands('BEGIN{cmd="rm -rf ~"; system(cmd)}').commands, ['rm -rf ~']);
    assert.deepEqual(awkCommands('BEGIN{print "rm -rf ~" | "sh"}').commands, ['sh', 'rm -rf ~']);
    assert.deepEqual(awkCommands('BEGIN{"rm -rf ~" | getline x}').commands, ['rm -rf ~']);
    assert.deepEqual(awkCommands('{print $1}').commands, []);
    assert.deepEqual(awkCommands('BEGIN { printf "%s|%s\\n", a, b }').commands, []);
    assert.deepEqual(awkCommands('$3 > 10 || $4 < 2').commands, []);
  });
  test('git ext:: URLs with % escapes', () => {
    assert.deepEqual(gitExtCommand('ext::sh -c rm% -rf% ~'), ['sh', '-c', 'rm -rf ~']);
    assert.deepEqual(gitExtCommand('ext::ssh -p 22 %S foo'), ['ssh', '-p', '22', 'upload-pack', 'foo']);
    assert.deepEqual(gitExtCommand('ext::git-remote %s 100%% %Gfoo'), ['git-remote', 'git-upload-pack', '100%']);
    assert.equal(gitExtCommand('https://github.com/x/y'), null);
  });
  test('arithmetic subscripts: only substitutions inside [ ] run', () => {
    assert.deepEqual(arithmeticSubscriptCommands('a[$(rm -rf ~)]'), ['rm -rf ~']);
    assert.deepEqual(arithmeticSubscriptCommands('x[`id`]+1'), ['id']);
    assert.deepEqual(arithmeticSubscriptCommands('a[b[$(id)]]'), ['id']);
    assert.deepEqual(arithmeticSubscriptCommands('$(date)'), []);
    assert.deepEqual(arithmeticSubscriptCommands('a[1]'), []);
  });
});
