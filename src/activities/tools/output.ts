// Keeping what the model sees within maxOutputChars.

/** Keeps the head; says how much was dropped. */
export function truncateHead(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: ${text.length - max} more chars]`;
}

/** Keeps the head and the tail (where errors of a command usually are). */
export function truncateMiddle(text: string, max: number): string {
  return truncateHeadTail(text.slice(0, max), text.slice(-max), text.length, max);
}

/**
 * Builds head + marker + tail from separately kept pieces of a stream of `total` chars:
 * `head` is its first min(total, max) chars and `tail` its last min(total, max) chars.
 */
export function truncateHeadTail(head: string, tail: string, total: number, max: number): string {
  if (total <= max) return head;
  const headLen = Math.ceil(max / 2);
  const tailLen = max - headLen;
  const omitted = total - headLen - tailLen;
  return `${head.slice(0, headLen)}\n[truncated: ${omitted} chars omitted]\n${tailLen > 0 ? tail.slice(-tailLen) : ''}`;
}

/** True if the buffer looks binary (a NUL byte in its first 8 KB). */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}
