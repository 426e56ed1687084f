import { z } from 'zod';
import { RagComponentName, RootCauseName } from '@rag-immune/memory-client';
import { InvalidRulesFileError, loadRulesFile, parseRulesText, uniqueIds, type RulesFileIssue } from '@rag-immune/worker-runtime';
import { toolNamed } from '../actions/catalogue.ts';

const Branch = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case words joined by -'),
    when: z
      .object({
        cause: z.array(RootCauseName).min(1).optional(),
        component: z.array(RagComponentName).min(1).optional(),
        /** knowledge: the report names affected knowledge ids; global: it names none. */
        scope: z.enum(['knowledge', 'global', 'any']).default('any'),
        min_confidence: z.number().min(0).max(1).optional(),
        /** History: failed repairs of this incident so far. */
        attempts_at_least: z.number().int().min(0).optional(),
        attempts_below: z.number().int().min(1).optional(),
      })
      .strict(),
    actions: z
      .array(
        z
          .object({
            tool: z.string().refine((name) => toolNamed(name) !== undefined, { message: 'unknown tool' }),
            reason: z.string().min(1),
            params: z.record(z.string()).default({}),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export const RepairPolicySchema = z
  .object({
    policy_version: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a semantic version such as 1.0.0'),
    branches: z.array(Branch).min(1),
  })
  .strict()
  .superRefine(uniqueIds('branches', 'branch'));
export type RepairPolicy = z.infer<typeof RepairPolicySchema>;
export type PolicyBranch = RepairPolicy['branches'][number];

/** The policy file is wrong: each issue names the line (1-based) and the path within the file. */
export class InvalidPolicyError extends InvalidRulesFileError {
  constructor(path: string, issues: RulesFileIssue[]) {
    super('repair policy', path, issues);
    this.name = 'InvalidPolicyError';
  }
}

/** Parses and validates a policy file (YAML or JSON, which is YAML); a bad one throws naming the line at fault. */
export function parsePolicy(text: string, path: string): RepairPolicy {
  return parseRulesText(text, RepairPolicySchema, (issues) => new InvalidPolicyError(path, issues));
}

export function loadPolicy(path: string): RepairPolicy {
  return loadRulesFile(path, RepairPolicySchema, (issues) => new InvalidPolicyError(path, issues));
}
