import { z } from 'zod';
import { QueryRewriteRule } from '@rag-immune/rag-contract';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, repairCallOptions } from './tool-helpers.ts';

/**
 * A generic rule set, not a patch for one fault: Unicode look-alikes of ASCII punctuation used inside
 * package names and versions fold back to ASCII, and invisible format characters are removed.
 */
export const RULE_SETS: Record<string, QueryRewriteRule[]> = {
  'unicode-confusables-v1': [
    { pattern: '[\\u200B-\\u200D\\u2060\\uFEFF]', replacement: '' },
    { pattern: '[\\u2010-\\u2015\\u2212\\uFE58\\uFE63\\uFF0D]', replacement: '-' },
    { pattern: '[\\u2024\\uFE52\\uFF0E]', replacement: '.' },
    { pattern: '[\\u2795\\uFE62\\uFF0B]', replacement: '+' },
  ],
};

/** Adds a named rule set to the RAG's query-rewrite rules (`PUT /repair/query-rewrite-rules`), keeping the rules in force. */
export const setQueryRewriteRules = defineTool({
  name: 'set_query_rewrite_rules',
  readme: {
    ragHook:
      '`PUT /repair/query-rewrite-rules` (+ rule set `unicode-confusables-v1`: look-alike `-` `.` `+` → ASCII, zero-width characters removed)',
    undo: 'the rules in force before (`GET /repair/query-rewrite-rules`)',
  },
  version: '1',
  intent: 'add_query_rewrite_rule',
  description: 'Add a query-rewrite rule set (default: Unicode confusables normalisation) before retrieval',
  input: z.object({ rule_set: z.string().min(1), rules: z.array(QueryRewriteRule).min(1).max(100) }).strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'repair_hooks',
  async plan(_ctx, params) {
    const ruleSet = params.rule_set ?? 'unicode-confusables-v1';
    const rules = RULE_SETS[ruleSet];
    if (rules === undefined) throw new PreconditionError(`unknown rule set ${ruleSet} (have ${Object.keys(RULE_SETS).join(', ')})`);
    return { rule_set: ruleSet, rules };
  },
  async preconditions(ctx) {
    if (!(await ctx.online.capabilities()).repair_hooks.includes('query_rewrite_rules'))
      throw new PreconditionError('the RAG serves no query_rewrite_rules hook');
  },
  capture: async (ctx) => ({ rules: (await ctx.online.getQueryRewriteRules()).rules }),
  async execute(ctx, args) {
    const current = (await ctx.online.getQueryRewriteRules()).rules;
    const merged = [...current, ...args.rules.filter((rule) => !current.some((c) => c.pattern === rule.pattern))];
    return ctx.online.setQueryRewriteRules({ rules: merged }, repairCallOptions(ctx));
  },
  async verify(ctx, args) {
    const current = (await ctx.online.getQueryRewriteRules()).rules;
    const missing = args.rules.filter((rule) => !current.some((c) => c.pattern === rule.pattern));
    return missing.length === 0 ? null : `${missing.length} rules are not in force`;
  },
  async undo(ctx, _args, prior) {
    await ctx.online.setQueryRewriteRules({ rules: (prior.rules ?? []) as QueryRewriteRule[] }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (args, prior) => [
    `query-rewrite rules set back to the ${((prior.rules ?? []) as unknown[]).length} in force before (drops rule set ${args.rule_set})`,
  ],
});
