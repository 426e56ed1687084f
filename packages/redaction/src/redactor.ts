import type { RedactionRule } from './rules.ts';

export interface Redaction {
  text: string;
  /** Matches replaced, by rule name (rules that matched nothing are absent). */
  found: Record<string, number>;
}

/**
 * Replaces personal data in text with typed placeholders, rule by rule in order. It never keeps or
 * returns what it removed: the counts say only how many of each kind there were.
 */
export class Redactor {
  readonly rules: readonly RedactionRule[];

  constructor(rules: readonly RedactionRule[]) {
    for (const rule of rules) if (!rule.pattern.global) throw new Error(`redaction rule ${rule.name}: its pattern must have the g flag`);
    this.rules = rules;
  }

  redact(text: string): Redaction {
    const found: Record<string, number> = {};
    let out = text;
    for (const rule of this.rules) {
      if (rule.requires !== undefined && !rule.requires(out)) continue;
      rule.pattern.lastIndex = 0;
      out = out.replace(rule.pattern, (match) => {
        if (rule.accept !== undefined && !rule.accept(match)) return match;
        found[rule.name] = (found[rule.name] ?? 0) + 1;
        return rule.placeholder;
      });
    }
    return { text: out, found };
  }

  /** The redacted text alone (`@rag-immune/traces`' TextRedactor). */
  readonly redactText = (text: string): string => this.redact(text).text;
}
