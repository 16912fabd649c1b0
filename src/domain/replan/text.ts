// Small text helpers shared by the replan policy modules. Pure: safe inside workflow sandboxes.

/** Cuts `text` to at most `maxChars` code points, saying how much was cut. Never splits a surrogate pair. */
export function truncateText(text: string, maxChars: number): string {
  const cps = Array.from(text);
  if (cps.length <= maxChars) return text;
  const marker = ` …[truncated ${cps.length - maxChars} chars]`;
  return cps.slice(0, Math.max(0, maxChars)).join('') + marker;
}

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
