// Reading asimov's own small files (policy, trust store, ground rules) without ever blocking: a FIFO,
// a device or a huge file planted where one is expected must produce an error, not a hang. The file is
// opened non-blocking and checked on the open descriptor (fstat), so a swap between a check and the read
// changes nothing.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export class NotRegularFileError extends Error {
  readonly code: 'not_regular' | 'too_large';
  constructor(code: 'not_regular' | 'too_large', message: string) {
    super(message);
    this.name = 'NotRegularFileError';
    this.code = code;
  }
}

/**
 * The bytes of a regular file of at most `maxBytes`; undefined when it does not exist (ENOENT, ENOTDIR).
 * Throws NotRegularFileError for a FIFO, socket, device or directory, or a file over the limit, and the
 * system's error for anything else (EACCES…). Never blocks on what is at the path.
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = st.isFIFO() ? 'a FIFO' : st.isDirectory() ? 'a directory' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
      throw new NotRegularFileError('not_regular', `${path} is ${kind}, not a regular file`);
    }
    if (st.size > maxBytes) throw new NotRegularFileError('too_large', `${path} is ${st.size} bytes, more than the ${maxBytes} allowed`);
    // Read to the end, but never more than one byte past the limit: a file that grows after fstat is caught.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(st.size - total, 0) + 1, maxBytes + 1 - total, 1 << 20));
      const r = readSync(fd, chunk, 0, chunk.length, null);
      if (r === 0) break;
      chunks.push(chunk.subarray(0, r));
      total += r;
      if (total > maxBytes) throw new NotRegularFileError('too_large', `${path} grew past the ${maxBytes} bytes allowed while it was read`);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
