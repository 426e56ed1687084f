/**
 * Per-RAG intake tokens (TRACE_INTAKE_TOKENS_FILE, a JSON file mounted from a Secret): each token
 * names the RAG whose spans it posts and what origins it may post. The RAG a span set belongs to is
 * the token's, never the spans' own `service.name` (anyone can write that). A token without `probe`
 * (e.g. a Collector that forwards only users' traffic) never gets a span filed as a probe's, signed
 * mark or not; a token without `user` has its unmarked spans refused.
 *
 *   { "tokens": [ { "rag": "reference-rag", "token": "…", "origins": ["probe", "user"] },
 *                 { "name": "support-collector", "rag": "support-rag", "token": "…", "origins": ["user"] } ] }
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MIN_API_TOKEN_LENGTH } from '@rag-immune/worker-runtime';

const NAME = z.string().regex(/^[\w.@-]{1,100}$/, "1-100 letters, digits, '_', '.', '@' or '-'");

export const IntakeOrigin = z.enum(['probe', 'user']);
export type IntakeOrigin = z.infer<typeof IntakeOrigin>;

const IntakeTokenEntry = z
  .object({
    /** The caller's name (logs, metrics, the rate limit); default: the RAG's. Unique. */
    name: NAME.optional(),
    rag: NAME,
    token: z
      .string()
      .min(MIN_API_TOKEN_LENGTH, `must be at least ${MIN_API_TOKEN_LENGTH} characters`)
      .regex(/^\S+$/, 'must have no spaces'),
    origins: z.array(IntakeOrigin).min(1).default(['probe', 'user']),
  })
  .strict();

/** One token's grant, as the intake uses it. */
export interface IntakeGrant {
  name: string;
  /** The RAG its spans are filed under; null: the spans' own service.name (the legacy single token without TRACE_INTAKE_API_TOKEN_RAG). */
  rag: string | null;
  token: string;
  origins: ReadonlySet<IntakeOrigin>;
}

export const IntakeTokensFile = z
  .object({ tokens: z.array(IntakeTokenEntry).min(1) })
  .strict()
  .transform((file, ctx): IntakeGrant[] => {
    const names = new Set<string>();
    const tokens = new Set<string>();
    const grants: IntakeGrant[] = [];
    for (const [index, entry] of file.tokens.entries()) {
      const name = entry.name ?? entry.rag;
      // Messages name the entry, never quote a token.
      if (names.has(name)) ctx.addIssue({ code: 'custom', message: `tokens[${index}]: the name ${name} appears twice` });
      if (tokens.has(entry.token))
        ctx.addIssue({ code: 'custom', message: `tokens[${index}] (${name}): the token is also another entry's` });
      names.add(name);
      tokens.add(entry.token);
      grants.push({ name, rag: entry.rag, token: entry.token, origins: new Set(entry.origins) });
    }
    return grants;
  });

/** An environment variable naming the tokens file; a bad file names its path and the entry, never a token. */
export const IntakeTokensFileEnv = z
  .string()
  .min(1)
  .transform((path, ctx): IntakeGrant[] => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${code ?? 'not JSON'}` });
      return z.NEVER;
    }
    const file = IntakeTokensFile.safeParse(parsed);
    if (!file.success) {
      const first = file.error.issues[0]!;
      const where = first.path.filter((p) => p !== 'token').join('.');
      ctx.addIssue({ code: 'custom', message: `${path}: ${where === '' ? '' : `${where}: `}${first.message}` });
      return z.NEVER;
    }
    return file.data;
  });
