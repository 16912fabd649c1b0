// Tool output: whether a file is text the model can read (its length is bounded with src/domain/text.ts's clipOutput).

/** True if the buffer looks binary (a NUL byte in its first 8 KB). */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}
