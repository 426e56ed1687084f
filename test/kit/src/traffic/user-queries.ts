/**
 * What simulated users ask: the reference question bank with popularity skewed like real traffic
 * (Zipf over questions: a few asked all the time, a long tail asked rarely), reworded by templates,
 * a share of questions the knowledge cannot answer, and optionally a share carrying personal data
 * (an e-mail address, a phone or card number users paste) for redaction to catch. Seeded: the same
 * seed gives the same sequence, so a bench or a test is reproducible.
 */
import type { LabelledQuestion } from '@rag-immune/reference-rag/testing';
import { seededRandom } from '@rag-immune/probing';

export { seededRandom };

type QuestionKind = LabelledQuestion['kind'];

/** One generated user question. */
export interface UserQuery {
  query: string;
  /** The labelled question it asks (null: outside the knowledge). */
  question_id: string | null;
  knowledge_id: string | null;
  /** Popularity rank of its question, 1 = most asked (null outside the knowledge). */
  rank: number | null;
  paraphrased: boolean;
  /** The kind of personal data appended, if any. */
  personal_data: 'email' | 'phone' | 'card' | null;
}

export interface UserQueryMixOptions {
  /** Zipf exponent s: the question of rank r is asked with weight 1/r^s (default 1; 0 = uniform). */
  zipfExponent?: number;
  /** Share of in-knowledge questions asked in other words than the bank's (default 0.5). */
  paraphraseShare?: number;
  /** Share of questions outside the knowledge (default 0.1). */
  outOfKnowledgeShare?: number;
  /** Share of questions that carry personal data (default 0). */
  personalDataShare?: number;
  /** PRNG seed (default 1). */
  seed?: number;
}

/** Rewordings by question kind; `{s}` is the package. The first is the bank's own wording. */
export const PARAPHRASES: Record<QuestionKind, readonly string[]> = {
  latest_version: [
    'What is the latest version of {s}?',
    'which version of {s} is the current one?',
    'latest {s} version?',
    "What's the newest release of {s}?",
    '{s}: what version is the most recent?',
  ],
  release_date: ['When was the latest version of {s} released?', 'release date of the newest {s}?', 'When did {s} last get a new release?'],
  uploader: ['Who uploaded the latest release of {s}?', 'who did the most recent upload of {s}?', 'latest {s} upload: who made it?'],
  installed_size: [
    'What is the installed size of the {s} package?',
    'How much disk space does {s} take once installed?',
    'installed size of {s}?',
  ],
  maintainer: ['Who maintains the {s} package?', 'who is the maintainer of {s}?', '{s} package maintainer?'],
};

/** Questions no Debian knowledge answers: other topics, and package names that do not exist. */
const OFF_TOPIC = [
  'How do I bake sourdough bread at home?',
  'What is the capital of Australia?',
  'Can you recommend a good laptop for gaming?',
  'How far is the moon from the earth?',
  'What is the best way to learn the guitar?',
];
const UNKNOWN_PACKAGES = ['quuxd', 'flibbertools', 'zarniwoop-utils', 'snorkelfs', 'wibblectl'];

/** Cumulative Zipf weights for n ranks: P(rank r) = r^-s / H(n, s). */
export function zipfCumulative(n: number, exponent: number): number[] {
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 1; r <= n; r += 1) {
    total += 1 / r ** exponent;
    cumulative.push(total);
  }
  return cumulative.map((c) => c / total);
}

/** The index whose cumulative probability first reaches u (binary search). */
function pick(cumulative: readonly number[], u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const share = (name: string, value: number | undefined, fallback: number) => {
  const v = value ?? fallback;
  if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be between 0 and 1, not ${v}`);
  return v;
};

export class UserQueryMix {
  /** The questions in popularity order: index 0 is rank 1. */
  readonly ranked: readonly LabelledQuestion[];
  private readonly cumulative: number[];
  private readonly random: () => number;
  private readonly paraphraseShare: number;
  private readonly outOfKnowledgeShare: number;
  private readonly personalDataShare: number;
  private personalCount = 0;

  constructor(questions: readonly LabelledQuestion[], options: UserQueryMixOptions = {}) {
    if (questions.length === 0) throw new RangeError('a user query mix needs at least one question');
    const exponent = options.zipfExponent ?? 1;
    if (!(exponent >= 0)) throw new RangeError(`zipfExponent must be >= 0, not ${exponent}`);
    this.paraphraseShare = share('paraphraseShare', options.paraphraseShare, 0.5);
    this.outOfKnowledgeShare = share('outOfKnowledgeShare', options.outOfKnowledgeShare, 0.1);
    this.personalDataShare = share('personalDataShare', options.personalDataShare, 0);
    this.random = seededRandom(options.seed ?? 1);
    // Popularity is not the bank's (alphabetical) order: a seeded shuffle decides who is popular.
    const shuffled = [...questions];
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(this.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    this.ranked = shuffled;
    this.cumulative = zipfCumulative(shuffled.length, exponent);
  }

  next(): UserQuery {
    const personal = this.random() < this.personalDataShare ? this.personalData() : null;
    const base = this.random() < this.outOfKnowledgeShare ? this.outOfKnowledge() : this.inKnowledge();
    return personal === null ? base : { ...base, query: `${base.query} ${personal.text}`, personal_data: personal.kind };
  }

  private inKnowledge(): UserQuery {
    const index = pick(this.cumulative, this.random());
    const question = this.ranked[index]!;
    const subject = question.knowledge_id.slice(question.knowledge_id.indexOf('/') + 1);
    const templates = PARAPHRASES[question.kind];
    const paraphrased = templates.length > 1 && this.random() < this.paraphraseShare;
    const query = paraphrased
      ? templates[1 + Math.floor(this.random() * (templates.length - 1))]!.replace('{s}', subject)
      : question.question;
    return { query, question_id: question.id, knowledge_id: question.knowledge_id, rank: index + 1, paraphrased, personal_data: null };
  }

  private outOfKnowledge(): UserQuery {
    const pool = [...OFF_TOPIC, ...UNKNOWN_PACKAGES.map((name) => `What is the latest version of ${name}?`)];
    return {
      query: pool[Math.floor(this.random() * pool.length)]!,
      question_id: null,
      knowledge_id: null,
      rank: null,
      paraphrased: false,
      personal_data: null,
    };
  }

  /** Synthetic, never real: example.org addresses, the UK's drama range, card test numbers. */
  private personalData(): { kind: 'email' | 'phone' | 'card'; text: string } {
    this.personalCount += 1;
    const n = this.personalCount;
    const kind = (['email', 'phone', 'card'] as const)[n % 3]!;
    if (kind === 'email') return { kind, text: `(reply to user${n}@example.org)` };
    if (kind === 'phone') return { kind, text: `(call me on +44 20 7946 ${String(n % 1000).padStart(4, '0')})` };
    return { kind, text: '(my card is 4111 1111 1111 1111)' };
  }
}
