import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A caller's name: what the audit log records as the actor. */
const CALLER_NAME = /^[\w.@-]{1,100}$/;
export const MIN_API_TOKEN_LENGTH = 16;

/**
 * Parses one token per caller: `name:token` entries separated by commas or newlines (blank lines
 * and `#` comments ignored). Messages name the entry or the caller, never quote a token.
 */
export function parseNamedTokens(text: string): { tokens: Record<string, string> } | { error: string } {
  const tokens: Record<string, string> = {};
  const seen = new Set<string>();
  const entries = text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !entry.startsWith('#'));
  if (entries.length === 0) return { error: 'no name:token entry' };
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    if (colon <= 0) return { error: `entry ${index + 1} is not name:token` };
    const name = entry.slice(0, colon).trim();
    const token = entry.slice(colon + 1).trim();
    if (!CALLER_NAME.test(name)) return { error: `entry ${index + 1}: the name must be 1-100 letters, digits, '_', '.', '@' or '-'` };
    if (Object.hasOwn(tokens, name)) return { error: `the name ${name} appears twice` };
    if (token.length < MIN_API_TOKEN_LENGTH || /\s/.test(token))
      return { error: `the token of ${name} must be at least ${MIN_API_TOKEN_LENGTH} characters, without spaces` };
    // Two callers sharing a token would make the authenticated name ambiguous.
    if (seen.has(token)) return { error: `the token of ${name} is also another caller's` };
    seen.add(token);
    tokens[name] = token;
  }
  return { tokens };
}

function namedTokens(text: string, ctx: z.RefinementCtx): Record<string, string> {
  const parsed = parseNamedTokens(text);
  if ('error' in parsed) {
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed.tokens;
}

/** An environment variable of `name:token` pairs (e.g. `alice:…,ci-bot:…`), one token per caller. */
export const NamedTokensEnv = z.string().transform(namedTokens);

/** An environment variable naming a file of `name:token` lines (a mounted secret), one token per caller. */
export const NamedTokensFileEnv = z
  .string()
  .min(1)
  .transform((path, ctx) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}` });
      return z.NEVER;
    }
    return namedTokens(text, ctx);
  });
