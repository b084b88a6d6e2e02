import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RECORD_FILE_SUFFIX } from './devtools-record.js';
import { type DevtoolsRow, quote, readRow } from './record-rows.js';

/** Bytes read from one file per poll: a huge file is read over several polls, memory stays bounded. */
const READ_CHUNK_BYTES = 1024 * 1024;

interface FileState {
  offset: number;
  /** Bytes of a line whose newline has not arrived yet. */
  pending: Buffer;
  /** The line being read is over the limit: skip to its newline (it was reported once). */
  skipping: boolean;
  line: number;
}

/**
 * Follows the `.jsonl` files of a recording directory: each `poll()` returns the rows of the lines completed since
 * the last one, in file order. A line is read only once its newline is written, so a record being written is never
 * read half; a line over `maxLineBytes` or not valid UTF-8 becomes an error row and reading goes on.
 */
export class RecordTail {
  readonly #dir: string;
  readonly #maxLineBytes: number;
  readonly #files = new Map<string, FileState>();
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(dir: string, maxLineBytes: number) {
    this.#dir = dir;
    this.#maxLineBytes = maxLineBytes;
  }

  /** The rows of every line completed since the last poll. A missing directory has no rows yet. */
  async poll(): Promise<DevtoolsRow[]> {
    let names: string[];
    try {
      names = (await readdir(this.#dir)).filter((name) => name.endsWith(RECORD_FILE_SUFFIX)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const rows: DevtoolsRow[] = [];
    for (const name of names) rows.push(...(await this.#readFile(name)));
    return rows;
  }

  async #readFile(name: string): Promise<DevtoolsRow[]> {
    let state = this.#files.get(name);
    if (state === undefined) {
      state = { offset: 0, pending: Buffer.alloc(0), skipping: false, line: 0 };
      this.#files.set(name, state);
    }
    const file = join(this.#dir, name);
    const rows: DevtoolsRow[] = [];
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch {
      return rows; // removed between the listing and now: nothing more to read
    }
    if (size < state.offset) {
      rows.push({
        kind: 'error',
        source: name,
        line: state.line,
        message: `the file shrank from ${state.offset} to ${size} bytes (rewritten or truncated); reading it again from the start`,
      });
      Object.assign(state, { offset: 0, pending: Buffer.alloc(0), skipping: false, line: 0 });
    }
    if (size === state.offset) return rows;
    const handle = await open(file, 'r');
    try {
      const length = Math.min(READ_CHUNK_BYTES, size - state.offset);
      const chunk = Buffer.alloc(length);
      const { bytesRead } = await handle.read(chunk, 0, length, state.offset);
      state.offset += bytesRead;
      this.#split(name, state, chunk.subarray(0, bytesRead), rows);
    } finally {
      await handle.close();
    }
    return rows;
  }

  #split(name: string, state: FileState, chunk: Buffer, rows: DevtoolsRow[]): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      state.line += 1;
      if (state.skipping) {
        state.skipping = false;
        continue;
      }
      const bytes = state.pending.length === 0 ? piece : Buffer.concat([state.pending, piece]);
      state.pending = Buffer.alloc(0);
      rows.push(this.#row(name, state.line, bytes));
    }
    const rest = chunk.subarray(start);
    if (state.skipping) return;
    if (state.pending.length + rest.length > this.#maxLineBytes) {
      rows.push({
        kind: 'error',
        source: name,
        line: state.line + 1,
        message: `the line is longer than ${this.#maxLineBytes} bytes; skipped: ${quote(state.pending.toString('utf8', 0, 200))}`,
      });
      state.pending = Buffer.alloc(0);
      state.skipping = true;
      return;
    }
    state.pending = Buffer.concat([state.pending, rest]);
  }

  #row(name: string, line: number, bytes: Buffer): DevtoolsRow {
    if (bytes.length > this.#maxLineBytes) {
      return {
        kind: 'error',
        source: name,
        line,
        message: `the line is longer than ${this.#maxLineBytes} bytes (${bytes.length}); skipped: ${quote(bytes.toString('utf8', 0, 200))}`,
      };
    }
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      return { kind: 'error', source: name, line, message: 'the line is not valid UTF-8' };
    }
    if (text.trim() === '') return { kind: 'error', source: name, line, message: 'an empty line' };
    return readRow(text, name, line, this.#maxLineBytes);
  }
}
