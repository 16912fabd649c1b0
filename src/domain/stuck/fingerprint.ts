// The small, normalised fingerprints a worker step reports for the stuck detector (detector.ts).
// The worker step activity computes them from the tool calls it ran, so the workflow never needs a
// tool's full output: per call a hash of the normalised call, a hash of its output, whether it
// failed, a short label and the first line of what the tool answered. Pure.
import { clip } from '../text';

/** One tool call as the detector sees it (at most ~200 bytes in history). */
export interface CallPrint {
  /** Hash of the tool name and its normalised arguments (normaliseArgs). */
  call: string;
  /** Hash of the normalised output (normaliseOutput). */
  out: string;
  ok: boolean;
  /** `list_dir output.txt`: the tool and its main argument, for the stuck note. */
  label: string;
  /** The first non-empty line of what the tool answered, clipped. */
  said: string;
}

export const LABEL_CHARS = 60;
export const SAID_CHARS = 100;
/** A step reports the fingerprints of its last calls only (history stays small). */
export const MAX_CALL_PRINTS = 8;

/** FNV-1a, 32 bits, as 8 hex digits: a stable, cheap fingerprint (not a security hash). */
export function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const ENTITIES: Record<string, string> = { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>', nbsp: ' ' };

/** `&#34;`, `&quot;`, `&#x27;` … as the characters they stand for (small models HTML-escape quotes). */
export function decodeHtmlEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (m, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n <= 0x10ffff ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** A string argument as the detector compares it: entities decoded, blanks collapsed, stray quotes and `./` dropped. */
function normaliseString(s: string): string {
  let t = decodeHtmlEntities(s).replace(/\s+/g, ' ').trim();
  t = t.replace(/^["'`]+|["'`]+$/g, '').trim();
  if (!/\s/.test(t)) t = t.replace(/^\.\/(?=.)/, '').replace(/(?<=.)\/+$/, '');
  return t;
}

function normaliseValue(v: unknown): unknown {
  if (typeof v === 'string') return normaliseString(v);
  if (Array.isArray(v)) return v.map(normaliseValue);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, normaliseValue(o[k])]),
    );
  }
  return v;
}

/** The arguments as compared: JSON with sorted keys and normalised strings (the raw text, normalised, when it is not JSON). */
export function normaliseArgs(raw: string): string {
  let v: unknown;
  try {
    v = JSON.parse(raw || '{}');
  } catch {
    v = raw;
  }
  return JSON.stringify(normaliseValue(v)) ?? '';
}

/**
 * An output as compared: entities decoded and quotes dropped (a failure echoes the argument the
 * model escaped), durations (`0.53s`, `12 ms`) blanked so a rerun matches, blanks collapsed.
 */
export function normaliseOutput(output: string): string {
  return decodeHtmlEntities(output)
    .replace(/["'`]/g, '')
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

const MAIN_ARGS = ['path', 'argv', 'pattern', 'query', 'command', 'url'];

/** `list_dir output.txt`: the tool's name and its main argument (argv joined), clipped. */
export function callLabel(name: string, normalisedArgs: string): string {
  let main = '';
  try {
    const v = JSON.parse(normalisedArgs) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const key = MAIN_ARGS.find((k) => o[k] !== undefined) ?? Object.keys(o).find((k) => typeof o[k] === 'string');
      const val = key === undefined ? undefined : o[key];
      main = Array.isArray(val) ? val.map(String).join(' ') : typeof val === 'string' ? val : '';
    } else if (typeof v === 'string') {
      main = v;
    }
  } catch {
    main = normalisedArgs;
  }
  return clip(`${name} ${main}`.replace(/\s+/g, ' ').trim(), LABEL_CHARS);
}

/** The first non-empty line of a tool's answer, clipped. */
export function firstLine(output: string): string {
  const line = output.split('\n').find((l) => l.trim() !== '') ?? '';
  return clip(line.trim(), SAID_CHARS);
}

/** A tool call's fingerprint, as the worker step reports it. */
export function callPrint(name: string, rawArgs: string, ok: boolean, output: string): CallPrint {
  const args = normaliseArgs(rawArgs);
  // A tool's error starts with its name ("list_dir: not found: x"): the label says it already.
  const answer = output.startsWith(`${name}: `) ? output.slice(name.length + 2) : output;
  return {
    call: fingerprint(`${name}\u0000${args}`),
    out: fingerprint(normaliseOutput(answer)),
    ok,
    label: callLabel(name, args),
    said: firstLine(answer),
  };
}

/** A reply with no tool call, as compared: case, digits, punctuation and blanks do not count. */
export function replyPrint(content: string): string {
  return fingerprint(
    decodeHtmlEntities(content)
      .toLowerCase()
      .replace(/[^\p{L}\s]+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** Why a call failed, in a few words: `not found` from "not found: x", `exit code 1`, else its first line clipped. */
export function failureReason(said: string): string {
  const m = /^([a-z][a-z _-]{1,30}):/i.exec(said);
  if (m) return m[1]!.trim();
  const exit = /^exit code (\d+)/.exec(said);
  if (exit) return `exit code ${exit[1]}`;
  return clip(said, 40) || 'no output';
}
