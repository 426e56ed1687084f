import type { QueryRewriteRule } from '@rag-immune/rag-contract';
import { assertSafeRewriteRules } from './rewrite-rule-safety.ts';

/**
 * Prepares a query for retrieval: a tokenizer-stage defect (the fault) first, then the query-rewrite
 * rules (a repair hook), then NFKC and whitespace folding.
 */
export class QueryNormalizer {
  /** The tokenizer anomaly: word-internal '-', '.', '+' arrive as look-alike Unicode with zero-width joiners. */
  tokenizerDefect = false;
  private rules: { pattern: RegExp; replacement: string }[] = [];
  private rawRules: QueryRewriteRule[] = [];

  setRules(rules: QueryRewriteRule[]): void {
    // Check and compile all first so one bad pattern leaves the old rules in place. The rules run on
    // every query, so only backtracking-safe patterns are accepted (a ReDoS would stall the RAG).
    assertSafeRewriteRules(rules);
    const compiled = rules.map((rule) => ({ pattern: new RegExp(rule.pattern, 'gu'), replacement: rule.replacement }));
    this.rules = compiled;
    this.rawRules = rules;
  }

  get currentRules(): QueryRewriteRule[] {
    return this.rawRules;
  }

  normalize(query: string): string {
    let text = query;
    if (this.tokenizerDefect) text = corruptPunctuation(text);
    for (const rule of this.rules) text = text.replace(rule.pattern, rule.replacement);
    return text.normalize('NFKC').replace(/\s+/g, ' ').trim();
  }
}

/** True for queries the tokenizer anomaly changes: a word with '-', '.' or '+' inside. */
export function touchedByTokenizerAnomaly(query: string): boolean {
  return /[\p{L}\p{N}][-.+][\p{L}\p{N}]/u.test(query);
}

function corruptPunctuation(text: string): string {
  return text.replace(/([\p{L}\p{N}])([-.+])(?=[\p{L}\p{N}])/gu, (_match, before: string, mark: string) => {
    const lookAlike = mark === '-' ? '\u2010' : mark === '.' ? '\u2024\u200d' : '\u2795';
    return `${before}\u200d${lookAlike}`;
  });
}
