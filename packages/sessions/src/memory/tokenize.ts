/** Words indexed per item: a huge item is indexed by its first words instead of allocating for all of them. */
export const MAX_INDEXED_TOKENS = 65_536;
/** Characters kept of one word: longer runs (base64, hashes) are cut so one word cannot dominate memory. */
export const MAX_TOKEN_LENGTH = 64;

// A word is a run of letters, digits and combining marks in any script; everything else
// (spaces, punctuation, symbols, emoji) separates words.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
// Scripts written without spaces between words are indexed one character per word (unigrams),
// so a query can match inside a run of Han, Hiragana or Katakana.
const IDEOGRAPHIC = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const IDEOGRAPHIC_SPLIT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+/gu;
// Combining marks are dropped after NFKD so that "café", "cafe\u0301" and "CAFÉ" index alike.
const MARKS = /\p{M}+/gu;

/**
 * Splits text into lowercase words for keyword recall: Unicode-normalised (NFKD, combining marks
 * removed, so accents and compatibility forms fold together), lowercased, split on anything that
 * is not a letter, digit or mark, each word cut to {@link MAX_TOKEN_LENGTH} characters, at most
 * `maxTokens` words. Han, Hiragana and Katakana are indexed one character per word. No stemming: "teas" and "tea" are different words.
 */
export function tokenize(text: string, maxTokens: number = MAX_INDEXED_TOKENS): string[] {
  const words: string[] = [];
  if (text.length === 0 || maxTokens <= 0) return words;
  WORD.lastIndex = 0;
  // the scan stops at the cap, so a huge text costs at most `maxTokens` words of allocation
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    const run = match[0];
    const parts = IDEOGRAPHIC.test(run) ? run.match(IDEOGRAPHIC_SPLIT) ?? [] : [run];
    for (const part of parts) {
      const word = fold(part);
      if (word.length > 0) words.push(word.length > MAX_TOKEN_LENGTH ? word.slice(0, MAX_TOKEN_LENGTH) : word);
      if (words.length >= maxTokens) return words;
    }
  }
  return words;
}

function fold(word: string): string {
  // ASCII needs no normalisation; skipping it keeps indexing of plain English text cheap
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(word)) return word.toLowerCase();
  return word.normalize('NFKD').replace(MARKS, '').toLowerCase();
}
