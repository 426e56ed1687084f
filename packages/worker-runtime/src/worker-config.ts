import type { z } from 'zod';

/** One wrong configuration value: the environment variable's name and what is wrong with it. */
export interface ConfigIssue {
  key: string;
  message: string;
}

/** A worker refuses to start on bad configuration; main() maps this to exit code 78 (EX_CONFIG). */
export class WorkerConfigError extends Error {
  constructor(
    readonly worker: string,
    readonly issues: ConfigIssue[],
  ) {
    super(`invalid ${worker} configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'WorkerConfigError';
  }
}

/**
 * Parses the environment with the worker's zod schema; an error names every wrong variable. `checks`
 * look at variables together (two that must come in a pair) once each is valid on its own.
 */
export function parseWorkerEnv<S extends z.ZodTypeAny>(
  worker: string,
  schema: S,
  env: NodeJS.ProcessEnv,
  checks: readonly ((config: z.infer<S>) => ConfigIssue | null)[] = [],
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) {
    const issues = checks.map((check) => check(parsed.data as z.infer<S>)).filter((issue): issue is ConfigIssue => issue !== null);
    if (issues.length > 0) throw new WorkerConfigError(worker, issues);
    return parsed.data as z.infer<S>;
  }
  throw new WorkerConfigError(
    worker,
    parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? '(env)'), message: issue.message })),
  );
}

/** Exit code for configuration errors (sysexits EX_CONFIG), shared by every worker. */
export const EXIT_CONFIG = 78;
