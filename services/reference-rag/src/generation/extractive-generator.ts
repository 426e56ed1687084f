import { FIELD_SEPARATOR } from '../chunking/knowledge-chunk.ts';
import type { ChunkPayload } from '../index/vector-index.ts';
import { containsTerms } from '../text/terms.ts';

export const GENERATOR_VERSION = 'extractive-template-1.0';

/** What a question asks for: the chunk field that answers it and how to phrase the answer. */
interface Intent {
  field: string;
  /** Fields the evidence must also have: release facts come from changelog chunks, which have `Released`. */
  requires?: string[];
  pattern: RegExp;
  phrase: (subject: string, value: string, fields: Map<string, string>) => string;
}

const INTENTS: Intent[] = [
  {
    field: 'Released',
    requires: ['Version'],
    pattern: /\bwhen\b|release date|released on/i,
    phrase: (subject, value, fields) =>
      `The latest version of ${subject} (${fields.get('Version') ?? 'unknown'}) was released on ${value}.`,
  },
  {
    field: 'Uploaded by',
    requires: ['Released'],
    pattern: /\buploaded\b|\buploader\b/i,
    phrase: (subject, value) => `The latest release of ${subject} was uploaded by ${value}.`,
  },
  {
    field: 'Installed-Size',
    pattern: /installed size|disk space|how (big|large)/i,
    phrase: (subject, value) => `The ${subject} package takes ${value} when installed.`,
  },
  {
    field: 'Maintainer',
    pattern: /\bmaintain(s|er|ed)?\b/i,
    phrase: (subject, value) => `The ${subject} package is maintained by ${value}.`,
  },
  { field: 'Section', pattern: /\bsection\b/i, phrase: (subject, value) => `The ${subject} package is in the ${value} section.` },
  {
    field: 'Version',
    requires: ['Released'],
    pattern: /\bversion\b/i,
    phrase: (subject, value) => `The latest version of ${subject} is ${value}.`,
  },
];

/** `Name: value` fields of a chunk text, first occurrence wins (as a reader of the text would see it). */
export function chunkFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of text.split(FIELD_SEPARATOR)) {
    const colon = part.indexOf(': ');
    if (colon <= 0) continue;
    const name = part.slice(0, colon).trim();
    if (!fields.has(name)) fields.set(name, part.slice(colon + 2).trim());
  }
  return fields;
}

/** A defect the fault injector installs: answers about the knowledge it affects get a wrong fact. */
export interface GeneratorDefect {
  affects: (knowledgeId: string) => boolean;
}

export interface GeneratedAnswer {
  answer: string;
  abstained: boolean;
  citations: ChunkPayload[];
  /** The extracted fact (value) the answer states, for validation. */
  value?: string;
  subject?: string;
}

const NOT_FOUND = 'The knowledge base has no evidence that answers this question.';
const NOT_CONFIRMED = 'The answer could not be confirmed against its evidence; please check the package archive.';

/**
 * A generator without LLM weights: recognises what the question asks for, takes that field from the
 * best-ranked context chunk that has it, and answers with a template that states the fact and its
 * subject, citing the chunk. No token probabilities exist, so none are reported.
 */
export class ExtractiveGenerator {
  defect: GeneratorDefect | undefined;
  /** The answer-validation fallback (a repair hook): withhold answers whose facts are not in the cited chunk. */
  validateAnswers = false;

  /** The build in force; a generator fault is modelled as a new build, so answers' `models` show it. */
  version = GENERATOR_VERSION;
  private readonly builds = new Map<string, GeneratorDefect | undefined>([[GENERATOR_VERSION, undefined]]);

  get availableVersions(): string[] {
    return [...this.builds.keys()];
  }

  /** Registers a build (the fault injector's defective one) and switches to it. */
  install(version: string, defect: GeneratorDefect | undefined): void {
    this.builds.set(version, defect);
    this.use(version);
  }

  use(version: string): void {
    if (!this.builds.has(version)) throw new Error(`unknown generator version ${version} (have ${this.availableVersions.join(', ')})`);
    this.version = version;
    this.defect = this.builds.get(version);
  }

  generate(query: string, context: ChunkPayload[]): GeneratedAnswer {
    const intent = INTENTS.find((candidate) => candidate.pattern.test(query));
    const needed = intent === undefined ? ['Package'] : [intent.field, ...(intent.requires ?? [])];
    const evidence = context.find((chunk) => {
      const fields = chunkFields(chunk.text);
      return needed.every((name) => fields.has(name));
    });
    if (evidence === undefined) return { answer: NOT_FOUND, abstained: true, citations: [] };
    const fields = chunkFields(evidence.text);
    const subject = fields.get('Package') ?? evidence.knowledge_id;
    if (intent === undefined) {
      const summary = fields.get('Summary') ?? fields.get('Changes') ?? evidence.text.slice(0, 160);
      return { answer: `${subject}: ${summary}`, abstained: false, citations: [evidence], subject };
    }
    let value = fields.get(intent.field)!;
    if (this.defect?.affects(evidence.knowledge_id)) value = swappedFact(value, intent.field, evidence, context);
    const answer = intent.phrase(subject, value, fields);
    if (this.validateAnswers && !(containsTerms(evidence.text, value) && containsTerms(evidence.text, subject))) {
      return { answer: NOT_CONFIRMED, abstained: true, citations: [evidence], value, subject };
    }
    return { answer, abstained: false, citations: [evidence], value, subject };
  }
}

/** The inconsistency defect: the same field of another context chunk, or else a digit nudged. */
function swappedFact(value: string, field: string, evidence: ChunkPayload, context: ChunkPayload[]): string {
  for (const other of context) {
    if (other.knowledge_id === evidence.knowledge_id) continue;
    const otherValue = chunkFields(other.text).get(field);
    if (otherValue !== undefined && otherValue !== value) return otherValue;
  }
  const digit = /\d(?=\D*$)/.exec(value);
  if (digit) return `${value.slice(0, digit.index)}${(Number(digit[0]) + 1) % 10}${value.slice(digit.index + 1)}`;
  return value.split(' ').reverse().join(' ');
}
