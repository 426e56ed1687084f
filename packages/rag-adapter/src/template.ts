/**
 * The adapter's placeholders: `${env:NAME}` (an environment variable, read once when the adapter is
 * bound: a missing one refuses to start naming the key), `${base_url}` (the side's RAG URL) and the
 * request's `${query}`, `${top_k}`, `${as_of}`. Substitution is one pass over the template, so a
 * value that itself contains `${...}` (a query, a secret) is never expanded again.
 */
import { AdapterFileError, type AdapterIssue } from './adapter-file.ts';

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const REQUEST_VARS = new Set(['base_url', 'query', 'top_k', 'as_of']);

export type Vars = Readonly<Record<string, string | number | readonly string[] | undefined>>;

/** The environment variables a template string names, and any placeholder that is not allowed. */
function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/**
 * Reads every `${env:NAME}` the strings use. Each missing variable or unknown placeholder is an issue
 * naming the key where it appears (never the value of anything).
 */
export function readEnvironment(
  strings: readonly { key: string; value: string }[],
  env: Readonly<Record<string, string | undefined>>,
  allowed: ReadonlySet<string> = REQUEST_VARS,
): Record<string, string> {
  const values: Record<string, string> = {};
  const issues: AdapterIssue[] = [];
  for (const { key, value } of strings)
    for (const name of placeholders(value)) {
      if (name.startsWith('env:')) {
        const variable = name.slice(4);
        const found = env[variable];
        if (found === undefined || found === '') issues.push({ key, message: `environment variable ${variable} is not set` });
        else values[`env:${variable}`] = found;
      } else if (!allowed.has(name))
        issues.push({
          key,
          message: `unknown placeholder \${${name}} (use \${env:NAME}${[...allowed].map((v) => `, \${${v}}`).join('')})`,
        });
    }
  if (issues.length > 0) throw new AdapterFileError('(environment)', issues);
  return values;
}

/** `template` with each placeholder replaced by `encode(value)`; an unset request value becomes ''. */
export function fill(template: string, vars: Vars, encode: (value: string, name: string) => string = (v) => v): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = vars[name];
    // A list inside a longer string (a URL, a sentence) is comma-joined.
    return value === undefined ? '' : encode(Array.isArray(value) ? value.join(',') : String(value), name);
  });
}

/**
 * The body template with the request's values in. A string that is exactly one placeholder takes the
 * value's own type (`"${top_k}"` → 5) and drops its key when the request has no such value.
 */
export function fillBody(template: unknown, vars: Vars): unknown {
  if (typeof template === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(template);
    if (whole !== null) return vars[whole[1] ?? ''];
    return fill(template, vars);
  }
  if (Array.isArray(template)) return template.map((item) => fillBody(item, vars)).filter((item) => item !== undefined);
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const filled = fillBody(value, vars);
      if (filled !== undefined) out[key] = filled;
    }
    return out;
  }
  return template;
}

/** Every string in a JSON value with its key (`request.body.overrideConfig.x`), for readEnvironment. */
export function stringsOf(value: unknown, key: string): { key: string; value: string }[] {
  if (typeof value === 'string') return [{ key, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsOf(item, `${key}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringsOf(v, `${key}.${k}`));
  return [];
}
