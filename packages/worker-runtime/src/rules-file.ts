/**
 * The one loader of the workers' versioned rule files (the effector's repair policy, memory's expert
 * rules): read, parse, validate with the file's zod schema; every problem names the line (1-based; 0
 * when the file could not be read), the key path and what is wrong, so a bad file refuses to start
 * the worker naming where to look. YAML, or JSON (which is YAML, but a `.json` file must be JSON).
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isNode } from 'yaml';
import type { z } from 'zod';

export interface RulesFileIssue {
  line: number;
  path: string;
  message: string;
}

export type RulesFileFormat = 'yaml' | 'json';

/** A rules file a worker refuses (the effector's policy, memory's rules): every issue with its line and key path. */
export class InvalidRulesFileError extends Error {
  constructor(
    /** What the file is, for the message: `repair policy`, `expert rules file`. */
    what: string,
    readonly path: string,
    readonly issues: RulesFileIssue[],
    /** How the message names the file's top level (an issue with an empty path). */
    top = 'root',
  ) {
    super(`invalid ${what} ${path}: ${issues.map((i) => `line ${i.line} (${i.path || top}): ${i.message}`).join('; ')}`);
  }
}

/** Parses and validates the text of a rules file; `refuse` turns its issues into the worker's own error. */
export function parseRulesText<S extends z.ZodTypeAny>(
  text: string,
  schema: S,
  refuse: (issues: RulesFileIssue[]) => Error,
  format: RulesFileFormat = 'yaml',
): z.infer<S> {
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (error) {
      throw refuse([{ line: 0, path: '', message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }]);
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw refuse(
      doc.errors.map((error) => ({
        line: lineCounter.linePos(error.pos[0]).line,
        path: '',
        message: error.message.split('\n')[0] ?? 'syntax error',
      })),
    );
  }
  const parsed = schema.safeParse(doc.toJS());
  if (parsed.success) return parsed.data as z.infer<S>;
  throw refuse(
    parsed.error.issues.map((issue) => {
      // The deepest node of the path that exists in the file: a missing key points at its parent.
      let line = 1;
      for (let depth = issue.path.length; depth >= 0; depth -= 1) {
        const node = depth === 0 ? doc.contents : doc.getIn(issue.path.slice(0, depth), true);
        if (isNode(node) && node.range) {
          line = lineCounter.linePos(node.range[0]).line;
          break;
        }
      }
      return { line, path: issue.path.join('.'), message: issue.message };
    }),
  );
}

/** Reads and validates a rules file; an unreadable one is refused too (line 0). */
export function loadRulesFile<S extends z.ZodTypeAny>(
  path: string,
  schema: S,
  refuse: (issues: RulesFileIssue[]) => Error,
  format: RulesFileFormat = 'yaml',
): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw refuse([{ line: 0, path: '', message: `cannot read: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  return parseRulesText(text, schema, refuse, format);
}

/**
 * A zod `superRefine` for a rules file's list of entries that each carry an `id` (policy branches,
 * expert rules): a second entry with an id already used is an issue at its `id`, named `duplicate <what> id`.
 */
export function uniqueIds(listKey: string, what: string) {
  return (file: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const seen = new Set<string>();
    (file[listKey] as readonly { id: string }[]).forEach((entry, i) => {
      if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [listKey, i, 'id'], message: `duplicate ${what} id ${entry.id}` });
      seen.add(entry.id);
    });
  };
}
