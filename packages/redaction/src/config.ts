/**
 * Redaction settings from the environment, for any process that handles user text:
 * - `REDACTION_RULES`: comma-separated built-in rules to apply (default: all but `ipv4`);
 * - `REDACTION_PATTERNS`: a JSON list of extra patterns, each a regex source string or
 *   `{ "name", "pattern", "flags"?, "placeholder"? }`;
 * - `REDACTION_PATTERNS_FILE`: the same JSON list in a file (e.g. a mounted ConfigMap).
 * Extra patterns run after the built-in ones. A bad value is refused naming its variable.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Redactor } from './redactor.ts';
import { DEFAULT_RULE_NAMES, DEFAULT_RULES, type RedactionRule } from './rules.ts';

export const RedactionEnv = z.object({
  REDACTION_RULES: z.string().optional(),
  REDACTION_PATTERNS: z.string().optional(),
  REDACTION_PATTERNS_FILE: z.string().min(1).optional(),
});
export type RedactionEnv = z.infer<typeof RedactionEnv>;

/** A redaction setting that cannot be used; `key` is the environment variable. */
export class RedactionConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'RedactionConfigError';
  }
}

const ExtraPattern = z.union([
  z.string().min(1),
  z.object({
    name: z
      .string()
      .regex(/^[a-z0-9_]+$/, 'must be lowercase letters, digits or _')
      .optional(),
    pattern: z.string().min(1),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'may only use i, m, s, u (g is added)')
      .optional(),
    placeholder: z.string().min(1).optional(),
  }),
]);
const ExtraPatterns = z.array(ExtraPattern);

function extraRules(key: string, json: string): RedactionRule[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new RedactionConfigError(key, `is not JSON: ${(error as Error).message}`);
  }
  const list = ExtraPatterns.safeParse(parsed);
  if (!list.success)
    throw new RedactionConfigError(
      key,
      `must be a JSON list of regex strings or {name, pattern, flags?, placeholder?}: ${list.error.issues
        .map((issue) => `[${issue.path.join('.')}] ${issue.message}`)
        .join('; ')}`,
    );
  return list.data.map((entry, i) => {
    const spec = typeof entry === 'string' ? { pattern: entry } : entry;
    const name = spec.name ?? `custom_${i + 1}`;
    let pattern: RegExp;
    try {
      pattern = new RegExp(spec.pattern, `g${spec.flags ?? ''}`);
    } catch (error) {
      throw new RedactionConfigError(key, `pattern ${i + 1} (${name}) is not a valid regex: ${(error as Error).message}`);
    }
    if (pattern.test('')) throw new RedactionConfigError(key, `pattern ${i + 1} (${name}) matches the empty string`);
    return { name, pattern, placeholder: spec.placeholder ?? `[${name}]` };
  });
}

/** The rules the settings name, built-in first; throws RedactionConfigError naming the variable. */
export function redactionRules(config: RedactionEnv): RedactionRule[] {
  const names =
    config.REDACTION_RULES === undefined
      ? DEFAULT_RULE_NAMES
      : config.REDACTION_RULES.split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
  const unknown = names.filter((name) => !DEFAULT_RULES.some((rule) => rule.name === name));
  if (unknown.length > 0)
    throw new RedactionConfigError(
      'REDACTION_RULES',
      `unknown rule ${unknown.join(', ')}; built-in rules: ${DEFAULT_RULES.map((rule) => rule.name).join(', ')}`,
    );
  const rules = DEFAULT_RULES.filter((rule) => names.includes(rule.name));
  if (config.REDACTION_PATTERNS !== undefined) rules.push(...extraRules('REDACTION_PATTERNS', config.REDACTION_PATTERNS));
  if (config.REDACTION_PATTERNS_FILE !== undefined) {
    let text: string;
    try {
      text = readFileSync(config.REDACTION_PATTERNS_FILE, 'utf8');
    } catch (error) {
      throw new RedactionConfigError('REDACTION_PATTERNS_FILE', `cannot be read: ${(error as Error).message}`);
    }
    rules.push(...extraRules('REDACTION_PATTERNS_FILE', text));
  }
  return rules;
}

export function redactorFromConfig(config: RedactionEnv): Redactor {
  return new Redactor(redactionRules(config));
}
