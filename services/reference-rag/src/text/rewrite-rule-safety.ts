import type { QueryRewriteRule } from '@rag-immune/rag-contract';

/** Most rules a rule set may hold: each one runs on every query. */
export const MAX_REWRITE_RULES = 50;
/** Longest pattern (and replacement) accepted, in UTF-16 code units. */
export const MAX_REWRITE_PATTERN_LENGTH = 200;
/** Largest count in a `{n,m}` quantifier. */
const MAX_REPEAT = 1000;

/**
 * Why a query-rewrite pattern is refused, or undefined when it is safe to run on every query.
 *
 * The rules are remote input that runs on every query, so only a backtracking-safe subset of
 * ECMAScript regular expressions is accepted: literals, escapes, character classes, `.`, anchors,
 * top-level alternation, and at most one variable-length quantifier (`*`, `+`, `?`, `{n,m}`) in the
 * whole pattern. Groups (so no nested quantifiers, lookarounds or captures) and backreferences are
 * refused. Without nested or stacked quantifiers a match costs at most O(n) per start position, so a
 * 2,000-character query cannot trigger catastrophic backtracking (`(a+)+$`, `a*a*a*b`).
 */
export function unsafeRewritePattern(pattern: string): string | undefined {
  if (pattern.length === 0) return 'the pattern is empty';
  if (pattern.length > MAX_REWRITE_PATTERN_LENGTH) return `the pattern is longer than ${MAX_REWRITE_PATTERN_LENGTH} characters`;
  let variableQuantifiers = 0;
  let quantifiable = false;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '(' || c === ')') return `groups are not allowed (at ${i}): they allow nested quantifiers, lookarounds and backreferences`;
    if (c === '\\') {
      const escape = readEscape(pattern, i);
      if (typeof escape === 'string') return escape;
      quantifiable = escape.quantifiable;
      i = escape.end;
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      if (typeof end === 'string') return end;
      quantifiable = true;
      i = end;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      const quantifier = readQuantifier(pattern, i);
      if (typeof quantifier === 'string') return quantifier;
      if (!quantifiable) return `a quantifier must follow a character, an escape or a class (at ${i})`;
      if (quantifier.variable && ++variableQuantifiers > 1)
        return 'at most one variable-length quantifier (*, +, ?, {n,m}) is allowed per pattern';
      quantifiable = false;
      i = quantifier.end;
      // A lazy marker after a quantifier.
      if (pattern[i] === '?') i++;
      continue;
    }
    // Anchors and alternation are not quantifiable; everything else is a literal or `.`.
    quantifiable = c !== '^' && c !== '$' && c !== '|';
    i++;
  }
  try {
    new RegExp(pattern, 'gu');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return undefined;
}

/** Throws an Error naming the first refused rule; the caller answers 400 with its message. */
export function assertSafeRewriteRules(rules: readonly QueryRewriteRule[]): void {
  if (rules.length > MAX_REWRITE_RULES) throw new Error(`at most ${MAX_REWRITE_RULES} rules are allowed, got ${rules.length}`);
  rules.forEach((rule, index) => {
    const reason = unsafeRewritePattern(rule.pattern);
    if (reason !== undefined) throw new Error(`rules[${index}] pattern ${JSON.stringify(rule.pattern.slice(0, 60))}: ${reason}`);
    if (rule.replacement.length > MAX_REWRITE_PATTERN_LENGTH)
      throw new Error(`rules[${index}] replacement is longer than ${MAX_REWRITE_PATTERN_LENGTH} characters`);
  });
}

function readEscape(pattern: string, at: number): { end: number; quantifiable: boolean } | string {
  const next = pattern[at + 1];
  if (next === undefined) return 'the pattern ends with a lone backslash';
  if (/[1-9]/.test(next) || next === 'k') return `backreferences are not allowed (at ${at})`;
  if (next === 'b' || next === 'B') return { end: at + 2, quantifiable: false };
  if (next === 'u' && pattern[at + 2] === '{') {
    const close = pattern.indexOf('}', at + 3);
    return close < 0 ? `unterminated \\u{...} escape (at ${at})` : { end: close + 1, quantifiable: true };
  }
  if (next === 'u') return { end: at + 6, quantifiable: true };
  if (next === 'x') return { end: at + 4, quantifiable: true };
  if ((next === 'p' || next === 'P') && pattern[at + 2] === '{') {
    const close = pattern.indexOf('}', at + 3);
    return close < 0 ? `unterminated \\p{...} escape (at ${at})` : { end: close + 1, quantifiable: true };
  }
  if (next === 'c') return { end: at + 3, quantifiable: true };
  // Class escapes (\d \w \s ...), control escapes and escaped syntax characters: one character.
  return { end: at + 2, quantifiable: true };
}

/** The index after the `]` closing the class opened at `at`. */
function classEnd(pattern: string, at: number): number | string {
  let i = at + 1;
  if (pattern[i] === '^') i++;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next !== undefined && (/[1-9]/.test(next) || next === 'k')) return `backreferences are not allowed (at ${i})`;
      i += 2;
      continue;
    }
    if (c === ']') return i + 1;
    i++;
  }
  return `unterminated character class (at ${at})`;
}

function readQuantifier(pattern: string, at: number): { end: number; variable: boolean } | string {
  const c = pattern[at]!;
  if (c !== '{') return { end: at + 1, variable: true };
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at, at + 16));
  if (match === null) return `a '{' must start a quantifier {n}, {n,} or {n,m} (at ${at}); escape a literal one as \\{`;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) return `a quantifier count above ${MAX_REPEAT} (at ${at})`;
  return { end: at + match[0].length, variable: max !== min };
}
