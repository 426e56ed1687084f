export { Redactor, type Redaction } from './redactor.ts';
export { DEFAULT_RULES, DEFAULT_RULE_NAMES, ibanValid, luhnValid, type RedactionRule } from './rules.ts';
export { RedactionConfigError, RedactionEnv, redactionRules, redactorFromConfig } from './config.ts';

import { Redactor } from './redactor.ts';
import { DEFAULT_RULE_NAMES, DEFAULT_RULES } from './rules.ts';

/** The built-in rules that are on by default. */
export function defaultRedactor(): Redactor {
  return new Redactor(DEFAULT_RULES.filter((rule) => DEFAULT_RULE_NAMES.includes(rule.name)));
}
