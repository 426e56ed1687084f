/** A passage of retrieved evidence; `id` is the retriever's id, or a content hash when none was given. */
export interface EvidencePassage {
  id: string;
  text: string;
}

/** A run of whole sentences of one passage that fits the model's evidence budget. */
export interface EvidenceWindow {
  passageId: string;
  passageIndex: number;
  /** Index of the first and last sentence (inclusive) of the passage in this window. */
  sentenceStart: number;
  sentenceEnd: number;
  text: string;
  ids: number[];
  /** True when a single sentence was longer than the budget and was cut at the token limit. */
  truncated: boolean;
}

export interface WindowPlan {
  windows: EvidenceWindow[];
  /** True when any sentence was cut or windows beyond `maxWindows` were dropped. */
  truncated: boolean;
}

// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'no',
  'fig',
  'approx',
  'cf',
  'al',
  'inc',
  'ltd',
  'jr',
  'sr',
  'st',
]);

/**
 * Splits text into sentences deterministically: after `.`, `!` or `?` (and any closing quotes or
 * brackets) followed by whitespace and an upper-case letter, digit, quote or bracket; and at blank
 * lines. Periods inside tokens (versions like 2.4.1, file names) never split, nor do known abbreviations.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const boundary = /([.!?]+["')\]]*)\s+(?=["'([]?[A-Z0-9])/g;
    let start = 0;
    for (let match = boundary.exec(block); match !== null; match = boundary.exec(block)) {
      const end = match.index + (match[1]?.length ?? 0);
      const lastWord = /(?:^|[^A-Za-z.])([A-Za-z.]+)\.$/.exec(block.slice(start, end))?.[1];
      // "e.g. Foo", "Dr. Smith", initials like "J. Smith" do not end a sentence.
      if (match[1] === '.' && lastWord !== undefined && (ABBREVIATIONS.has(lastWord.toLowerCase()) || /^[A-Z]$/.test(lastWord))) continue;
      pushSentence(sentences, block.slice(start, end));
      start = match.index + match[0].length;
    }
    pushSentence(sentences, block.slice(start));
  }
  return sentences;
}

function pushSentence(sentences: string[], raw: string): void {
  const sentence = raw.replace(/\s+/g, ' ').trim();
  if (sentence.length > 0) sentences.push(sentence);
}

export interface WindowOptions {
  /** Evidence tokens available per model input (max tokens minus specials minus question+answer). */
  budgetTokens: number;
  /** Hard cap on windows per triple, so one huge document cannot stall the sentinel. */
  maxWindows: number;
}

/**
 * Greedy sentence windows per passage: a passage that fits the budget is one window (exactly what
 * the model saw in training); a longer one becomes consecutive windows of whole sentences that
 * overlap by one sentence, so a fact straddling a boundary is seen whole at least once. A sentence
 * longer than the budget is cut at the budget. Deterministic: same input, same windows.
 */
export function buildWindows(
  passages: readonly EvidencePassage[],
  tokenize: (text: string) => number[],
  options: WindowOptions,
): WindowPlan {
  const budget = Math.max(1, options.budgetTokens);
  const windows: EvidenceWindow[] = [];
  let truncated = false;
  passages.forEach((passage, passageIndex) => {
    const sentences = splitSentences(passage.text);
    const sentenceIds = sentences.map(tokenize);
    let start = 0;
    while (start < sentences.length) {
      let end = start;
      let ids = [...(sentenceIds[start] ?? [])];
      let cut = false;
      if (ids.length > budget) {
        ids = ids.slice(0, budget);
        cut = true;
      } else {
        while (end + 1 < sentences.length && ids.length + (sentenceIds[end + 1]?.length ?? 0) <= budget) {
          end += 1;
          ids = ids.concat(sentenceIds[end] ?? []);
        }
      }
      truncated ||= cut;
      windows.push({
        passageId: passage.id,
        passageIndex,
        sentenceStart: start,
        sentenceEnd: end,
        text: sentences.slice(start, end + 1).join(' '),
        ids,
        truncated: cut,
      });
      if (end + 1 >= sentences.length) break;
      // One sentence of overlap, but always move forward.
      start = end > start ? end : end + 1;
    }
  });
  if (windows.length > options.maxWindows) {
    return { windows: windows.slice(0, options.maxWindows), truncated: true };
  }
  return { windows, truncated };
}
