// The one home of text clipping for every layer (domain, workflows, activities, llm): bounded text
// for prompts, history, memos, comments and tool output. Pure and sandbox-safe (no TextEncoder).
// Each clip keeps the exact form it had where it came from: texts already in histories, memos and
// tests read the same.

/** Runs of whitespace (newlines included) as one space, trimmed. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** At most `max` characters (UTF-16 units): a longer text keeps its head and ends in `ellipsis`. */
export function clip(text: string, max: number, ellipsis = '…'): string {
  return text.length > max ? `${text.slice(0, max - ellipsis.length)}${ellipsis}` : text;
}

/** A longer text's first `max` characters, then `ellipsis` (max + the ellipsis in all). */
export function clipAfter(text: string, max: number, ellipsis = '…'): string {
  return text.length > max ? `${text.slice(0, max)}${ellipsis}` : text;
}

/** One line of at most `max` characters, ending in "…" when cut (error lines, event and comment fields). */
export const clipLine = (text: string, max: number): string => clip(oneLine(text), max);

/** One line: a longer one's first `max` characters, then "…". */
export const clipLineAfter = (text: string, max: number): string => clipAfter(oneLine(text), max);

/**
 * At most `max` code points (a surrogate pair is never split), then " …[truncated N chars]" saying
 * how many were cut: for texts an LLM reads again (decision records, prompts, feedback).
 */
export function clipCounted(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max)).join('')} …[truncated ${chars.length - max} chars]`;
}

/**
 * Head and tail of a long text around "[… N chars cut …]" (a transcript's tool arguments and
 * outputs, where the end matters as much as the start).
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars cut …]\n${text.slice(-half)}`;
}

/**
 * The last `max` code points of a long text (a surrogate pair is never split), after a line saying
 * how many were cut: the end of a log, where a failure's reason usually is.
 */
export function clipTail(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `[…${chars.length - max} chars cut]\n${chars.slice(chars.length - Math.max(0, max)).join('')}`;
}

// ------------------------------------------------------------------ tool output (what the model sees)

/** A tool's output within `max` characters: its head, then how much was dropped. */
export function clipOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: ${text.length - max} more chars]`;
}

/**
 * A command's output within `max` characters: head and tail (where its errors usually are), from
 * separately kept pieces of a stream of `total` characters: `head` is its first min(total, max)
 * characters and `tail` its last min(total, max).
 */
export function joinOutputEnds(head: string, tail: string, total: number, max: number): string {
  if (total <= max) return head;
  const headLen = Math.ceil(max / 2);
  const tailLen = max - headLen;
  const omitted = total - headLen - tailLen;
  return `${head.slice(0, headLen)}\n[truncated: ${omitted} chars omitted]\n${tailLen > 0 ? tail.slice(-tailLen) : ''}`;
}

// ------------------------------------------------------------------ bytes (limits of the Web UI and of memos)

/** UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/** The longest head of `text` within `maxBytes` UTF-8 bytes, with "…" when cut (never splits a character). */
export function clipUtf8(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let out = '';
  let n = 0;
  for (const ch of text) {
    const b = utf8Bytes(ch);
    if (n + b > maxBytes - 3) break;
    out += ch;
    n += b;
  }
  return `${out}…`;
}

/** UTF-8 bytes of a string written as JSON (quotes and escapes counted). */
export const jsonBytes = (text: string): number => utf8Bytes(JSON.stringify(text));

/** `text` clipped so that its JSON is at most `maxBytes` UTF-8 bytes (escapes counted), with "…" when cut. */
export function clipJsonUtf8(text: string, maxBytes: number): string {
  if (jsonBytes(text) <= maxBytes) return text;
  // The quotes and the ellipsis (3 bytes), then each character as JSON writes it.
  let n = 2 + 3;
  let out = '';
  for (const ch of text) {
    const b = jsonBytes(ch) - 2;
    if (n + b > maxBytes) break;
    out += ch;
    n += b;
  }
  return `${out}…`;
}

// ------------------------------------------------------------------ other text an LLM gave

/** Any list item an LLM may produce (string, number, small object) as one line of text. */
export function itemToText(item: unknown): string {
  if (typeof item === 'string') return item;
  if (typeof item === 'number' || typeof item === 'boolean') return String(item);
  try {
    return JSON.stringify(item) ?? String(item);
  } catch {
    return String(item);
  }
}

/** Lower-cased, NFKC-normalised, digits folded to '#', punctuation dropped, whitespace collapsed. */
export function normalizeForKey(text: string, maxChars = 80): string {
  const norm = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{N}+/gu, '#')
    .replace(/[^\p{L}#\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return Array.from(norm).slice(0, maxChars).join('');
}
