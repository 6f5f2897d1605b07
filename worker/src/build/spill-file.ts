import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A file in the temporary folder that a build appends bytes to and reads back: what it keeps per
 * route waits there (in the page cache, which the kernel may drop) instead of the process's memory.
 * Unlinked as soon as it is opened, so it goes when it is closed or the process ends, whatever
 * ends the build; nobody else can open it.
 */
export class SpillFile {
  private fd: number | undefined;
  private end = 0;

  constructor(name: string) {
    const path = join(tmpdir(), `pressroom-${name}-${process.pid}-${randomUUID()}`);
    this.fd = openSync(path, "w+", 0o600);
    rmSync(path, { force: true });
  }

  /** How many bytes it holds. */
  get size(): number {
    return this.end;
  }

  /** Appends `bytes`; answers the offset they start at. */
  append(bytes: Uint8Array): number {
    const at = this.end;
    this.writeAt(at, bytes);
    return at;
  }

  /** Writes `bytes` at `offset` (a place counted out before: slotted-stubs.ts). */
  writeAt(offset: number, bytes: Uint8Array): void {
    const fd = this.open();
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written, offset + written);
    this.end = Math.max(this.end, offset + bytes.length);
  }

  /** Reads `length` bytes from `offset` into `target` at `into`. */
  readInto(offset: number, length: number, target: Uint8Array, into = 0): void {
    readAt(this.open(), offset, length, target, into);
  }

  /** Lets go of the file and its space; reading or appending after throws. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    if (this.fd === undefined) throw new Error("a build's temporary file was read after it was closed");
    return this.fd;
  }
}

/** Reads `length` bytes at `offset` of the open file `fd` into `target` at `into`. */
function readAt(fd: number, offset: number, length: number, target: Uint8Array, into = 0): void {
  for (let read = 0; read < length; ) {
    const got = readSync(fd, target, into + read, length - read, offset + read);
    if (got === 0) throw new Error("a build's temporary file was cut short");
    read += got;
  }
}
