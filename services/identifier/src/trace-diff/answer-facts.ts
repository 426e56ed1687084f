/**
 * Is an answer faithful to its own context? The facts an answer states (versions, dates, sizes,
 * e-mail addresses, names: any token with a digit, an '@' or an initial capital that is not a
 * sentence opener) must appear in the text of the chunks it cites. A template word ("The",
 * "latest") is not a fact; a value the cited chunk does not contain is.
 */

const STOP = new Set(['The', 'A', 'An', 'It', 'This', 'That', 'Who', 'What', 'When', 'Debian', 'KiB', 'MiB', 'GiB']);

/** Tokens of the answer that state facts. */
export function factTokens(answer: string): string[] {
  const tokens = answer
    .split(/\s+/)
    .map((token) => token.replace(/^[("'[]+|[)"'\].,;:!?]+$/g, ''))
    .filter((token) => token.length > 0);
  return [...new Set(tokens.filter((token) => /\d/.test(token) || token.includes('@') || (/^[A-Z]/.test(token) && !STOP.has(token))))];
}

/** Fact tokens of the answer that none of the given texts contains. */
export function unsupportedFacts(answer: string, texts: readonly string[]): string[] {
  const haystack = texts.join('\n').toLowerCase();
  return factTokens(answer).filter((token) => !haystack.includes(token.toLowerCase()));
}
