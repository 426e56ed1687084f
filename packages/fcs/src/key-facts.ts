/**
 * Deterministic key-fact extraction and checking. The model is good at meaning but weak at exact
 * tokens (a changed digit, a unit swap, a new package name barely move its probability); these are
 * precisely the facts a RAG answer must get right, and they can be checked exactly.
 */
import type { EvidencePassage } from './evidence-windows.ts';
import { splitSentences } from './evidence-windows.ts';

export type KeyFactKind = 'quantity' | 'date' | 'version' | 'number' | 'entity' | 'negation' | 'relation';
export type KeyFactStatus = 'supported' | 'contradicted' | 'unsupported';

/** One fact stated by the answer and what the evidence says about it. */
export interface KeyFactFinding {
  kind: KeyFactKind;
  /** The fact as written in the answer. */
  answer_text: string;
  /** Its normalised form (quantities in base units, dates ISO, identifiers lower-case). */
  normalised: string;
  status: KeyFactStatus;
  /** The evidence that supports or contradicts it, when there is one. */
  evidence_text?: string;
  passage_id?: string;
  reason: string;
}

export interface Quantity {
  text: string;
  value: number;
  unit: string;
  dimension: string;
  /** Value in the dimension's base unit (bytes, seconds, metres, grams...). */
  base: number;
  start: number;
  end: number;
}

interface UnitInfo {
  unit: string;
  dimension: string;
  factor: number;
}

// Abbreviations are matched case-sensitively (MB is not mb = millibit); words case-insensitively.
const UNIT_SYMBOLS: Record<string, UnitInfo> = {
  B: { unit: 'B', dimension: 'data', factor: 1 },
  kB: { unit: 'kB', dimension: 'data', factor: 1e3 },
  KB: { unit: 'kB', dimension: 'data', factor: 1e3 },
  KiB: { unit: 'KiB', dimension: 'data', factor: 1024 },
  MB: { unit: 'MB', dimension: 'data', factor: 1e6 },
  MiB: { unit: 'MiB', dimension: 'data', factor: 1024 ** 2 },
  GB: { unit: 'GB', dimension: 'data', factor: 1e9 },
  GiB: { unit: 'GiB', dimension: 'data', factor: 1024 ** 3 },
  TB: { unit: 'TB', dimension: 'data', factor: 1e12 },
  TiB: { unit: 'TiB', dimension: 'data', factor: 1024 ** 4 },
  Kbps: { unit: 'kbit/s', dimension: 'bitrate', factor: 1e3 },
  Mbps: { unit: 'Mbit/s', dimension: 'bitrate', factor: 1e6 },
  Gbps: { unit: 'Gbit/s', dimension: 'bitrate', factor: 1e9 },
  ms: { unit: 'ms', dimension: 'time', factor: 1e-3 },
  s: { unit: 's', dimension: 'time', factor: 1 },
  min: { unit: 'min', dimension: 'time', factor: 60 },
  h: { unit: 'h', dimension: 'time', factor: 3600 },
  mm: { unit: 'mm', dimension: 'length', factor: 1e-3 },
  cm: { unit: 'cm', dimension: 'length', factor: 1e-2 },
  m: { unit: 'm', dimension: 'length', factor: 1 },
  km: { unit: 'km', dimension: 'length', factor: 1e3 },
  mg: { unit: 'mg', dimension: 'mass', factor: 1e-3 },
  g: { unit: 'g', dimension: 'mass', factor: 1 },
  kg: { unit: 'kg', dimension: 'mass', factor: 1e3 },
  Hz: { unit: 'Hz', dimension: 'frequency', factor: 1 },
  kHz: { unit: 'kHz', dimension: 'frequency', factor: 1e3 },
  MHz: { unit: 'MHz', dimension: 'frequency', factor: 1e6 },
  GHz: { unit: 'GHz', dimension: 'frequency', factor: 1e9 },
  W: { unit: 'W', dimension: 'power', factor: 1 },
  kW: { unit: 'kW', dimension: 'power', factor: 1e3 },
  '%': { unit: '%', dimension: 'ratio', factor: 1 },
  '°C': { unit: '°C', dimension: 'temperature-c', factor: 1 },
  '°F': { unit: '°F', dimension: 'temperature-f', factor: 1 },
};

const UNIT_WORDS: Record<string, UnitInfo> = {
  byte: UNIT_SYMBOLS.B!,
  kilobyte: UNIT_SYMBOLS.kB!,
  kibibyte: UNIT_SYMBOLS.KiB!,
  megabyte: UNIT_SYMBOLS.MB!,
  mebibyte: UNIT_SYMBOLS.MiB!,
  gigabyte: UNIT_SYMBOLS.GB!,
  gibibyte: UNIT_SYMBOLS.GiB!,
  terabyte: UNIT_SYMBOLS.TB!,
  bit: { unit: 'bit', dimension: 'data', factor: 1 / 8 },
  kilobit: { unit: 'kbit', dimension: 'data', factor: 1e3 / 8 },
  megabit: { unit: 'Mbit', dimension: 'data', factor: 1e6 / 8 },
  gigabit: { unit: 'Gbit', dimension: 'data', factor: 1e9 / 8 },
  millisecond: UNIT_SYMBOLS.ms!,
  second: UNIT_SYMBOLS.s!,
  sec: UNIT_SYMBOLS.s!,
  minute: UNIT_SYMBOLS.min!,
  hour: UNIT_SYMBOLS.h!,
  day: { unit: 'd', dimension: 'time', factor: 86400 },
  week: { unit: 'wk', dimension: 'time', factor: 604800 },
  month: { unit: 'mo', dimension: 'time', factor: 2629800 },
  year: { unit: 'yr', dimension: 'time', factor: 31557600 },
  millimetre: UNIT_SYMBOLS.mm!,
  millimeter: UNIT_SYMBOLS.mm!,
  centimetre: UNIT_SYMBOLS.cm!,
  centimeter: UNIT_SYMBOLS.cm!,
  metre: UNIT_SYMBOLS.m!,
  meter: UNIT_SYMBOLS.m!,
  kilometre: UNIT_SYMBOLS.km!,
  kilometer: UNIT_SYMBOLS.km!,
  mile: { unit: 'mi', dimension: 'length', factor: 1609.344 },
  gram: UNIT_SYMBOLS.g!,
  kilogram: UNIT_SYMBOLS.kg!,
  pound: { unit: 'lb', dimension: 'mass', factor: 453.59237 },
  percent: UNIT_SYMBOLS['%']!,
  hertz: UNIT_SYMBOLS.Hz!,
  watt: UNIT_SYMBOLS.W!,
  dollar: { unit: 'USD', dimension: 'money-usd', factor: 1 },
  euro: { unit: 'EUR', dimension: 'money-eur', factor: 1 },
};

const CURRENCY_PREFIX: Record<string, UnitInfo> = {
  $: UNIT_WORDS.dollar!,
  '€': UNIT_WORDS.euro!,
  '£': { unit: 'GBP', dimension: 'money-gbp', factor: 1 },
};

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const unitAlternatives = [...Object.keys(UNIT_SYMBOLS), ...Object.keys(UNIT_WORDS).map((word) => `${word}s?`), 'per cent']
  .sort((a, b) => b.length - a.length)
  .map((unit) => unit.replace(/[$%°]/g, (c) => `\\${c}`))
  .join('|');
// A number not glued to a version or identifier ([\w.-] before, .digit after), then a unit.
const QUANTITY = new RegExp(String.raw`(?<![\w.\-:~+])(${NUMBER})(?![.,]?\d)[\s-]?(${unitAlternatives})(?![\w])`, 'gi');
const CURRENCY = new RegExp(String.raw`([$€£])\s?(${NUMBER})(?![.,]?\d)`, 'g');

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = String.raw`(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?`;
const DATE_PATTERNS: { pattern: RegExp; parts: (m: RegExpExecArray) => [string, string, string | undefined] }[] = [
  {
    pattern: new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH},?\s+(\d{4})\b`, 'gi'),
    parts: (m) => [m[3]!, m[2]!, m[1]],
  },
  { pattern: new RegExp(String.raw`\b${MONTH}\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`, 'gi'), parts: (m) => [m[3]!, m[1]!, m[2]] },
  { pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/g, parts: (m) => [m[1]!, m[2]!, m[3]] },
  { pattern: new RegExp(String.raw`\b${MONTH}\s+(\d{4})\b`, 'gi'), parts: (m) => [m[2]!, m[1]!, undefined] },
];

export interface DateFact {
  text: string;
  /** YYYY-MM-DD, or YYYY-MM when the day is not given. */
  iso: string;
  start: number;
  end: number;
}

export interface TokenFact {
  text: string;
  normalised: string;
  start: number;
}

/** Every fact-bearing span of a text; used for both the answer and the evidence. */
export interface ExtractedFacts {
  quantities: Quantity[];
  dates: DateFact[];
  versions: TokenFact[];
  identifiers: TokenFact[];
  numbers: TokenFact[];
  entities: TokenFact[];
}

const NEGATION = /\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|n['’]t\b/i;
const RELATION_CUES: Record<string, RegExp> = {
  // One class for both directions ("C, so E" = "E because C"); a reversal is caught by causeEffectReversed.
  cause:
    /\b(?:because|due to|owing to|caused by|as a result of|thanks to|causes?|caused|causing|therefore|thus|hence|consequently|so that|as a result)\b|,\s*so\b/i,
  contrast: /\b(?:despite|although|though|however|whereas|nevertheless|in spite of|but)\b/i,
  prevention: /\b(?:prevents?|prevented|preventing|stops?|avoids?|avoided|avoiding)\b/i,
};

// Cues that order a cause and an effect: "C, so E" (cause first) and "E because C" (effect first).
const CAUSE_FIRST = /,?\s*\b(?:so that|so|therefore|thus|hence|consequently|as a result)\b/i;
const EFFECT_FIRST = /,?\s*\b(?:because|due to|owing to|as a result of|since)\b/i;

/** The (cause, effect) clauses of a sentence with one causal cue, or undefined. */
function causeAndEffect(sentence: string): [string, string] | undefined {
  for (const [cue, causeFirst] of [
    [CAUSE_FIRST, true],
    [EFFECT_FIRST, false],
  ] as const) {
    const m = cue.exec(sentence);
    if (!m || m.index === 0) continue;
    const left = sentence.slice(0, m.index);
    const right = sentence.slice(m.index + m[0].length);
    return causeFirst ? [left, right] : [right, left];
  }
  return undefined;
}

/**
 * True when the answer states the evidence's cause as the effect and vice versa ("B, so A" for
 * "A, so B"): its clauses match the evidence's crosswise clearly better than straight.
 */
function causeEffectReversed(answerSentence: string, evidenceSentence: string): boolean {
  const a = causeAndEffect(answerSentence);
  const e = causeAndEffect(evidenceSentence);
  if (!a || !e) return false;
  const straight = contentOverlap(a[0], e[0]) + contentOverlap(a[1], e[1]);
  const crossed = contentOverlap(a[0], e[1]) + contentOverlap(a[1], e[0]);
  return crossed >= straight + 0.5;
}
const STOPWORDS = new Set(
  'a an the and or of to in on at for by with from as is are was were be been being it its this that these those which who whom what when where how why can could will would should may might must do does did has have had also than then there their they them he she his her we our you your i into onto over under about after before per via all any each both more most other some such only own same so just too very upon up down out off again further once here'.split(
    ' ',
  ),
);
const NEGATION_WORDS = new Set(['not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', 'without']);
const NUMBER_WORDS: Record<string, string> = {
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
};

function parseNumber(text: string): number {
  return Number(text.replace(/,/g, ''));
}

function lookupUnit(raw: string): UnitInfo | undefined {
  const symbol = UNIT_SYMBOLS[raw];
  if (symbol) return symbol;
  const word = raw.toLowerCase().replace(/\s+/g, ' ');
  if (word === 'per cent') return UNIT_SYMBOLS['%'];
  return UNIT_WORDS[word] ?? UNIT_WORDS[word.replace(/s$/, '')];
}

function extractQuantities(text: string): Quantity[] {
  const found: Quantity[] = [];
  for (const m of text.matchAll(QUANTITY)) {
    const info = lookupUnit(m[2]!);
    // Symbols are case-sensitive: "5 mb" or "3 S" are not units we trust.
    if (!info || (m[2]!.length <= 3 && !(m[2]! in UNIT_SYMBOLS) && !(m[2]!.toLowerCase() in UNIT_WORDS))) continue;
    const value = parseNumber(m[1]!);
    found.push({
      text: m[0],
      value,
      unit: info.unit,
      dimension: info.dimension,
      base: value * info.factor,
      start: m.index,
      end: m.index + m[0].length,
    });
  }
  for (const m of text.matchAll(CURRENCY)) {
    const info = CURRENCY_PREFIX[m[1]!]!;
    const value = parseNumber(m[2]!);
    found.push({ text: m[0], value, unit: info.unit, dimension: info.dimension, base: value, start: m.index, end: m.index + m[0].length });
  }
  return found;
}

function extractDates(text: string): DateFact[] {
  const found: DateFact[] = [];
  const taken: [number, number][] = [];
  for (const { pattern, parts } of DATE_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      const [year, monthRaw, day] = parts(m as RegExpExecArray);
      const month = /^\d+$/.test(monthRaw)
        ? Number(monthRaw)
        : MONTHS.findIndex((name) => name.startsWith(monthRaw.toLowerCase().slice(0, 3))) + 1;
      if (month < 1 || month > 12) continue;
      const iso = `${year}-${String(month).padStart(2, '0')}${day === undefined ? '' : `-${day.padStart(2, '0')}`}`;
      taken.push([start, end]);
      found.push({ text: m[0], iso, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Blanks the given spans so later passes (numbers, versions) do not see them twice. */
function mask(text: string, spans: { start: number; end: number }[]): string {
  let out = text;
  for (const { start, end } of spans) out = out.slice(0, start) + ' '.repeat(end - start) + out.slice(end);
  return out;
}

const TRIM_LEADING = /^["'“‘([{<]+/;
const TRIM_TRAILING = /["'”’)\]}>.,;:!?]+$/;

/** Extracts every key fact of a text. */
export function extractFacts(text: string): ExtractedFacts {
  const normalisedText = text.normalize('NFKC');
  const dates = extractDates(normalisedText);
  const afterDates = mask(normalisedText, dates);
  const quantities = extractQuantities(afterDates);
  const rest = mask(afterDates, quantities);
  const versions: TokenFact[] = [];
  const identifiers: TokenFact[] = [];
  const numbers: TokenFact[] = [];
  for (const m of rest.matchAll(/\S+/g)) {
    const token = m[0].replace(TRIM_LEADING, '').replace(TRIM_TRAILING, '');
    if (token.length === 0) continue;
    const start = m.index + m[0].indexOf(token);
    if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^\d+(?:\.\d+)?$/.test(token)) {
      numbers.push({ text: token, normalised: String(parseNumber(token)), start });
    } else if (/^\d/.test(token) && /[.\-:~+]/.test(token)) {
      versions.push({ text: token, normalised: token.toLowerCase(), start });
    } else if (/^[A-Za-z]/.test(token) && token.length >= 3 && (/\d/.test(token) || /[a-z0-9][-+.][a-z0-9]/i.test(token))) {
      identifiers.push({ text: token, normalised: token.toLowerCase(), start });
    }
  }
  return { quantities, dates, versions, identifiers, numbers, entities: extractEntities(rest) };
}

const ENTITY_SKIP = new Set([
  ...STOPWORDS,
  ...NEGATION_WORDS,
  ...MONTHS,
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
]);

/**
 * Proper names: runs of capitalised words. A sentence's first word counts only when it cannot be
 * ordinary capitalisation (all caps like HTTP, inner capitals like KiCad), to avoid "The", "Version"...
 */
function extractEntities(text: string): TokenFact[] {
  const entities: TokenFact[] = [];
  // Whole tokens only: "LZ4", "JPEG2000" and "2D" are identifiers or numbers, not the names LZ, JPEG, D.
  const words = [...text.matchAll(/(?<![\w.-])[A-Za-z][A-Za-z'’]*(?:[-.][A-Za-z]+)*(?![\w-])|[.!?:;]\s|\s{2,}|[,()"]/g)];
  let run: { text: string; start: number }[] = [];
  let sentenceStart = true;
  const flush = (): void => {
    if (run.length > 0) {
      const phrase = run.map((w) => w.text).join(' ');
      entities.push({ text: phrase, normalised: phrase.toLowerCase(), start: run[0]!.start });
    }
    run = [];
  };
  for (const m of words) {
    const word = m[0];
    if (!/^[A-Za-z]/.test(word)) {
      flush();
      if (/^[.!?:;]/.test(word)) sentenceStart = true;
      continue;
    }
    const capitalised = /^[A-Z]/.test(word);
    const distinctive = /^[A-Z]{2,}$/.test(word.replace(/[-.'’]/g, '')) || /^[A-Z]?[a-z]+[A-Z]/.test(word);
    const skip = ENTITY_SKIP.has(word.toLowerCase()) && !/^[A-Z]{2,}$/.test(word);
    if (capitalised && !skip && (!sentenceStart || distinctive)) run.push({ text: word, start: m.index });
    else flush();
    sentenceStart = false;
  }
  flush();
  return entities;
}

export interface EvidenceIndex {
  passages: { passage: EvidencePassage; facts: ExtractedFacts; lowerText: string; words: Set<string>; sentences: string[] }[];
}

function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z0-9][a-z0-9.\-:~+']*[a-z0-9]|[a-z0-9]/g)) {
    words.add(m[0]);
    // Hyphenated compounds also count by their parts ("single-player" supports "single player").
    for (const part of m[0].split(/[-.]/)) if (part.length > 0) words.add(part);
    if (NUMBER_WORDS[m[0]]) words.add(NUMBER_WORDS[m[0]]!);
  }
  return words;
}

/** Pre-computes the evidence side once per triple. */
export function indexEvidence(passages: readonly EvidencePassage[]): EvidenceIndex {
  return {
    passages: passages.map((passage) => {
      const text = passage.text.normalize('NFKC');
      return { passage, facts: extractFacts(text), lowerText: text.toLowerCase(), words: wordSet(text), sentences: splitSentences(text) };
    }),
  };
}

/** Lower-case content words of a sentence (no stop words, negations or bare numbers). */
export function contentWords(sentence: string): string[] {
  return [...wordSet(sentence)].filter((w) => !STOPWORDS.has(w) && !NEGATION_WORDS.has(w) && !/^\d+$/.test(w) && w.length > 1);
}

/** Fraction of the content words of `text` that also occur in `other` (snippet relevance). */
export function contentOverlap(text: string, other: string): number {
  const words = contentWords(text.normalize('NFKC'));
  if (words.length === 0) return 0;
  const otherWords = wordSet(other.normalize('NFKC'));
  return words.filter((w) => otherWords.has(w)).length / words.length;
}

interface SentenceMatch {
  sentence: string;
  passageId: string;
  containment: number;
}

/** The evidence sentence sharing most of the answer sentence's content words. */
function bestSentence(answerSentence: string, evidence: EvidenceIndex): SentenceMatch | undefined {
  const words = contentWords(answerSentence);
  if (words.length < 2) return undefined;
  let best: SentenceMatch | undefined;
  for (const { passage, sentences } of evidence.passages) {
    for (const sentence of sentences) {
      const evidenceWords = wordSet(sentence);
      const containment = words.filter((w) => evidenceWords.has(w)).length / words.length;
      if (!best || containment > best.containment) best = { sentence, passageId: passage.id, containment };
    }
  }
  return best;
}

function occursAsToken(haystack: string, needle: string): boolean {
  let from = 0;
  for (let at = haystack.indexOf(needle, from); at >= 0; at = haystack.indexOf(needle, from)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    if ((before === undefined || !/[a-z0-9]/.test(before)) && (after === undefined || !/[a-z0-9]/.test(after))) return true;
    from = at + 1;
  }
  return false;
}

function sameQuantity(a: Quantity, b: Quantity): boolean {
  if (a.dimension !== b.dimension) return false;
  if (a.unit === b.unit) return Math.abs(a.value - b.value) <= 1e-9 * Math.max(1, Math.abs(b.value));
  // Different units of one dimension: equal after conversion, allowing the answer's rounding.
  return Math.abs(a.base - b.base) <= 0.05 * Math.max(Math.abs(a.base), Math.abs(b.base));
}

/** Checks each key fact of the answer against all evidence passages. */
export function checkKeyFacts(answer: string, evidence: EvidenceIndex): KeyFactFinding[] {
  const facts = extractFacts(answer);
  const findings: KeyFactFinding[] = [];
  const seen = new Set<string>();
  const add = (finding: KeyFactFinding): void => {
    const key = `${finding.kind}:${finding.normalised}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(finding);
  };
  const all = evidence.passages;

  for (const q of facts.quantities) {
    const normalised = `${q.value} ${q.unit}`;
    const match = all.flatMap((p) => p.facts.quantities.map((e) => ({ e, id: p.passage.id }))).find(({ e }) => sameQuantity(q, e));
    if (match) {
      add({
        kind: 'quantity',
        answer_text: q.text,
        normalised,
        status: 'supported',
        evidence_text: match.e.text,
        passage_id: match.id,
        reason: 'stated in the evidence',
      });
      continue;
    }
    const swapped = all
      .flatMap((p) => p.facts.quantities.map((e) => ({ e, id: p.passage.id })))
      .find(({ e }) => e.value === q.value && e.unit !== q.unit);
    const sameDimension = all
      .flatMap((p) => p.facts.quantities.map((e) => ({ e, id: p.passage.id })))
      .find(({ e }) => e.dimension === q.dimension);
    if (swapped) {
      add({
        kind: 'quantity',
        answer_text: q.text,
        normalised,
        status: 'contradicted',
        evidence_text: swapped.e.text,
        passage_id: swapped.id,
        reason: `unit differs: evidence says ${swapped.e.text}`,
      });
    } else if (sameDimension) {
      add({
        kind: 'quantity',
        answer_text: q.text,
        normalised,
        status: 'contradicted',
        evidence_text: sameDimension.e.text,
        passage_id: sameDimension.id,
        reason: `value not in the evidence, which states ${sameDimension.e.text}`,
      });
    } else {
      add({ kind: 'quantity', answer_text: q.text, normalised, status: 'unsupported', reason: 'no quantity of this kind in the evidence' });
    }
  }

  for (const d of facts.dates) {
    const evidenceDates = all.flatMap((p) => p.facts.dates.map((e) => ({ e, id: p.passage.id })));
    const match = evidenceDates.find(({ e }) => e.iso === d.iso || e.iso.startsWith(`${d.iso}-`));
    if (match)
      add({
        kind: 'date',
        answer_text: d.text,
        normalised: d.iso,
        status: 'supported',
        evidence_text: match.e.text,
        passage_id: match.id,
        reason: 'stated in the evidence',
      });
    else if (evidenceDates[0]) {
      add({
        kind: 'date',
        answer_text: d.text,
        normalised: d.iso,
        status: 'contradicted',
        evidence_text: evidenceDates[0].e.text,
        passage_id: evidenceDates[0].id,
        reason: `date not in the evidence, which states ${evidenceDates.map(({ e }) => e.text).join(', ')}`,
      });
    } else add({ kind: 'date', answer_text: d.text, normalised: d.iso, status: 'unsupported', reason: 'no date in the evidence' });
  }

  for (const v of facts.versions) {
    const holder = all.find((p) => occursAsToken(p.lowerText, v.normalised));
    const evidenceVersions = all.flatMap((p) => p.facts.versions.map((e) => ({ e, id: p.passage.id })));
    if (holder)
      add({
        kind: 'version',
        answer_text: v.text,
        normalised: v.normalised,
        status: 'supported',
        passage_id: holder.passage.id,
        reason: 'stated in the evidence',
      });
    else if (evidenceVersions[0]) {
      // The closest evidence version (longest common prefix) is the one it most likely misstates.
      const closest = evidenceVersions.reduce((best, cur) =>
        commonPrefix(cur.e.normalised, v.normalised) > commonPrefix(best.e.normalised, v.normalised) ? cur : best,
      );
      add({
        kind: 'version',
        answer_text: v.text,
        normalised: v.normalised,
        status: 'contradicted',
        evidence_text: closest.e.text,
        passage_id: closest.id,
        reason: `version not in the evidence, which states ${closest.e.text}`,
      });
    } else
      add({ kind: 'version', answer_text: v.text, normalised: v.normalised, status: 'unsupported', reason: 'no version in the evidence' });
  }

  for (const n of facts.numbers) {
    const holder = all.find(
      (p) =>
        p.words.has(n.normalised) ||
        p.facts.quantities.some((e) => String(e.value) === n.normalised) ||
        p.facts.numbers.some((e) => e.normalised === n.normalised),
    );
    if (holder)
      add({
        kind: 'number',
        answer_text: n.text,
        normalised: n.normalised,
        status: 'supported',
        passage_id: holder.passage.id,
        reason: 'stated in the evidence',
      });
    else
      add({ kind: 'number', answer_text: n.text, normalised: n.normalised, status: 'unsupported', reason: 'number not in the evidence' });
  }

  for (const id of facts.identifiers) {
    const holder = all.find((p) => occursAsToken(p.lowerText, id.normalised));
    if (holder)
      add({
        kind: 'entity',
        answer_text: id.text,
        normalised: id.normalised,
        status: 'supported',
        passage_id: holder.passage.id,
        reason: 'named in the evidence',
      });
    else
      add({
        kind: 'entity',
        answer_text: id.text,
        normalised: id.normalised,
        status: 'unsupported',
        reason: 'identifier not named in the evidence',
      });
  }

  for (const entity of facts.entities) {
    const holder = all.find((p) => occursAsToken(p.lowerText, entity.normalised));
    if (holder) {
      add({
        kind: 'entity',
        answer_text: entity.text,
        normalised: entity.normalised,
        status: 'supported',
        passage_id: holder.passage.id,
        reason: 'named in the evidence',
      });
      continue;
    }
    const missing = entity.normalised.split(' ').filter((w) => !all.some((p) => p.words.has(w)));
    if (missing.length === 0)
      add({
        kind: 'entity',
        answer_text: entity.text,
        normalised: entity.normalised,
        status: 'supported',
        reason: 'every word named in the evidence',
      });
    else
      add({
        kind: 'entity',
        answer_text: entity.text,
        normalised: entity.normalised,
        status: 'unsupported',
        reason: `not named in the evidence: ${missing.join(', ')}`,
      });
  }

  for (const sentence of splitSentences(answer.normalize('NFKC'))) {
    const match = bestSentence(sentence, evidence);
    const answerNegated = NEGATION.test(sentence);
    if (match && match.containment >= 0.5) {
      const evidenceNegated = NEGATION.test(match.sentence);
      if (answerNegated !== evidenceNegated) {
        add({
          kind: 'negation',
          answer_text: sentence,
          normalised: `negated=${answerNegated}`,
          status: 'contradicted',
          evidence_text: match.sentence,
          passage_id: match.passageId,
          reason: answerNegated ? 'the answer negates what the evidence states' : 'the evidence negates what the answer states',
        });
      }
      if (causeEffectReversed(sentence, match.sentence)) {
        add({
          kind: 'relation',
          answer_text: sentence,
          normalised: 'cause-effect-reversed',
          status: 'contradicted',
          evidence_text: match.sentence,
          passage_id: match.passageId,
          reason: 'the answer swaps cause and effect',
        });
      }
      for (const [relation, cue] of Object.entries(RELATION_CUES)) {
        if (cue.test(sentence) && !cue.test(match.sentence)) {
          add({
            kind: 'relation',
            answer_text: sentence,
            normalised: relation,
            status: 'unsupported',
            evidence_text: match.sentence,
            passage_id: match.passageId,
            reason: `the evidence does not state this ${relation} relation`,
          });
        }
      }
    } else if (answerNegated) {
      add({
        kind: 'negation',
        answer_text: sentence,
        normalised: 'negated=true',
        status: 'unsupported',
        reason: 'no evidence sentence states this negative',
      });
    }
  }
  return findings;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

/**
 * Canonical text for cache keys: NFKC, lower case, key facts replaced by their normalised form
 * (dates ISO, quantities value+unit, thousands separators dropped), other punctuation removed.
 * "Released 29 July 2022." and "released 2022-07-29" give the same key; "1.5" and "15" do not.
 */
export function normaliseForKey(text: string): string {
  const t = text.normalize('NFKC');
  const dates = extractDates(t);
  let out = '';
  let cursor = 0;
  const afterDates = mask(t, dates);
  const quantities = extractQuantities(afterDates);
  const spans = [
    ...dates.map((d) => ({ start: d.start, end: d.end, value: ` ${d.iso} ` })),
    ...quantities.map((q) => ({ start: q.start, end: q.end, value: ` ${q.value} ${q.unit} ` })),
  ].sort((a, b) => a.start - b.start);
  for (const span of spans) {
    out += t.slice(cursor, span.start) + span.value;
    cursor = span.end;
  }
  out += t.slice(cursor);
  return out
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/(?<=[\p{L}\p{N}])[.\-:~+/'’](?=[\p{L}\p{N}])/gu, (c) => (c === '’' ? "'" : c)) // keep in-token punctuation (2.4.1, kicad-doc-de)
    .replace(/[^\p{L}\p{N}\s.\-:~+/'%$€£°]|(?<![\p{L}\p{N}])[.\-:~+/']|[.\-:~+/'](?![\p{L}\p{N}])/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
