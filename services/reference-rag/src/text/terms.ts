const STOPWORDS = new Set(
  'a an and are as at be by for from has have how in is it its of on or the this to was were what when which who whom with does do did latest current package version release released'.split(
    ' ',
  ),
);

/** Lower-cased terms; keeps `+ . ~ : -` inside a term so package names and versions stay whole. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}+.~:_-]*/gu)) {
    out.push(match[0].replace(/[.:_-]+$/, ''));
  }
  return out;
}

/** Terms that carry meaning for matching (stopwords and question words removed). */
export function contentTerms(text: string): string[] {
  return terms(text).filter((term) => !STOPWORDS.has(term));
}

/** Numbers, versions and dates in a text: the facts an answer must not get wrong. */
export function numericTerms(text: string): string[] {
  return terms(text).filter((term) => /\d/.test(term));
}

/** True when `needle` occurs in `haystack` as a whole term sequence (case-insensitive). */
export function containsTerms(haystack: string, needle: string): boolean {
  const h = ` ${terms(haystack).join(' ')} `;
  const n = terms(needle).join(' ');
  return n !== '' && h.includes(` ${n} `);
}
