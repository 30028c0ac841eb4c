// Node built-ins loaded on first use, and the hash every call needs without them. A hook process starts per
// tool call and `node:crypto` alone costs several milliseconds to load.

import { createRequire } from 'node:module';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type * as Crypto from 'node:crypto';
import type * as ChildProcess from 'node:child_process';
import type * as Zlib from 'node:zlib';

declare const require: NodeJS.Require | undefined;

/** A synchronous require in both forms the code runs in: the CommonJS bundle and ES modules (tests). */
const nodeRequire: NodeJS.Require = typeof require === 'function' ? require : createRequire(import.meta.url);

let crypto: typeof Crypto | undefined;
let childProcess: typeof ChildProcess | undefined;
let zlib: typeof Zlib | undefined;

/** node:child_process (with node:net under it, ~5 ms): only calls that run something need it. */
export function lazyChildProcess(): typeof ChildProcess {
  childProcess ??= nodeRequire('node:child_process') as typeof ChildProcess;
  return childProcess;
}

/** node:zlib: only a payload a command line decompresses (`… | base64 -d | gunzip | sh`) needs it. */
export function lazyZlib(): typeof Zlib {
  zlib ??= nodeRequire('node:zlib') as typeof Zlib;
  return zlib;
}

export function lazyCrypto(): typeof Crypto {
  crypto ??= nodeRequire('node:crypto') as typeof Crypto;
  return crypto;
}

/**
 * Hex sha256 of a string (UTF-8) or bytes. @noble/hashes (audited, pure JS) rather than node:crypto: a hook
 * hashes the policy and chains its audit line once per tool call, and loading node:crypto for that cost
 * more start-up time (~4–6 ms) than the hashing itself.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256(typeof data === 'string' ? utf8ToBytes(data) : data));
}

/**
 * A unique id for a decision: a random per-process prefix and a counter, shaped like a UUID. An id needs
 * to be unique, not secret, and this costs nothing per call (no node:crypto, no per-call randomness).
 */
let idPrefix: string | undefined;
let idCounter = 0;
export function randomId(): string {
  if (idPrefix === undefined) {
    let hex = '';
    for (let i = 0; i < 20; i++) hex += Math.floor(Math.random() * 16).toString(16);
    idPrefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-`;
  }
  idCounter++;
  return idPrefix + idCounter.toString(16).padStart(12, '0');
}

/** Milliseconds since an arbitrary origin, without loading node:perf_hooks. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
