// V9: the run's language, for what the run shows people in the words of its design (a task's
// consultation has Japanese and English words): the instruction's. Pure.

export type RunLanguage = 'ja' | 'en';

/** Hiragana and katakana: only Japanese writes them. */
const KANA = /[\u3040-\u30ff\uff66-\uff9f]/g;
/** Kana and kanji (CJK ideographs), the letters of a Japanese text. */
const JAPANESE = /[\u3040-\u30ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff]/g;
/** Latin letters, the other letters an instruction is written in (code, paths, English words). */
const LATIN = /[A-Za-z\u00c0-\u024f]/g;

/**
 * V9: Japanese when the instruction is written in Japanese: it has kana (kanji alone may be Chinese)
 * and Japanese letters are at least a fifth of its letters, so a Japanese sentence full of paths and
 * code names is Japanese, and an English one quoting a Japanese word is English. Anything else is English.
 */
export function runLanguage(instruction: string): RunLanguage {
  const kana = instruction.match(KANA)?.length ?? 0;
  if (kana === 0) return 'en';
  const japanese = instruction.match(JAPANESE)?.length ?? 0;
  const latin = instruction.match(LATIN)?.length ?? 0;
  return japanese * 5 >= japanese + latin ? 'ja' : 'en';
}
