/**
 * Intent coverage (IC): how much of what the query asks for the answer actually addresses.
 *
 * Method (documented in services/sentinel/README.md):
 * 1. The query is parsed into intent nodes (compare, predict, define, enumerate, quantity, date,
 *    cause, procedure, version, owner) by cue patterns, and slots: the things it is about (quoted
 *    terms, package-like identifiers, versions, numbers, dates, capitalised names).
 * 2. An intent node is covered when the answer contains the kind of content that intent needs: a
 *    date for `date`, a number for `quantity`, a version string for `version`, two or more of the
 *    compared slots for `compare`, several items for `enumerate`, a causal connective for `cause`...
 * 3. A slot is covered when the answer mentions it (case- and punctuation-insensitive).
 * 4. IC = covered nodes / all nodes, intents weighing 1 and slots 0.5 (what is asked matters more
 *    than repeating the subject). A query with no node at all has no IC (null), never a made-up 1.
 * An abstaining or empty answer covers nothing.
 */

export type IntentKind = 'compare' | 'predict' | 'define' | 'enumerate' | 'quantity' | 'date' | 'cause' | 'procedure' | 'version' | 'owner';

export interface IntentCoverage {
  ic: number | null;
  intents: { kind: IntentKind; covered: boolean }[];
  slots: { text: string; covered: boolean }[];
}

const INTENT_CUES: Record<IntentKind, RegExp> = {
  compare:
    /\b(compare|comparison|versus|vs\.?|difference between|differ|better than|newer than|older than|which is (newer|older|larger|smaller|better))\b/i,
  predict: /\b(will|forecast|predict|expected to|going to|next release|upcoming)\b/i,
  define: /\b(what is|what's|what are|define|definition of|meaning of|stands? for|describe)\b/i,
  enumerate: /\b(list|name all|which (packages|versions|files|options|commands)|what (packages|versions|options|commands)|enumerate)\b/i,
  quantity: /\b(how (many|much|big|large|long)|number of|size of|count of|installed size|amount of)\b/i,
  date: /\b(when (was|were|did|is|will|does|do)|what date|which date|what year|which year|release date|released on|date of)\b/i,
  cause: /\b(why|cause[sd]?|reason|because|due to)\b/i,
  procedure: /\b(how (do|to|can|should) (i|you|we)?|steps to|how to|install|configure|set up|enable|disable)\b/i,
  version: /\b(which version|what version|latest version|current version|version of|upstream version)\b/i,
  owner: /\b(who|maintainer|maintained by|which package provides|what package provides|author)\b/i,
};

const DATE =
  /\b(\d{4}-\d{2}-\d{2}|\d{1,2} (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2},? \d{4}|(19|20)\d{2})\b/i;
const NUMBER = /\b\d+(?:[.,]\d+)?\b/;
const VERSION = /\b\d+(?:\.\d+)+(?:[-~+][0-9A-Za-z.+~-]+)?\b|\b\d+:[0-9][0-9A-Za-z.+~-]*\b/;
const CAUSAL = /\b(because|due to|since|caused by|as a result|so that|in order to|fix(es|ed)?|to address)\b/i;
const PROCEDURAL = /\b(run|install|use|set|enable|disable|configure|edit|add|apt(-get)?|then|first|step)\b/i;
const OWNER = /(@|\b(maintainer|maintained by|team|project|developers?|provided by|provides)\b|\b[A-Z][a-z]+ [A-Z][a-z]+\b)/;
const FUTURE = /\b(will|expected|planned|scheduled|next|upcoming|likely)\b/i;

const STOP = new Set(
  'the a an of in on for to and or is are was were be by with what which who when why how does do did it its this that as at from than into about version versions package packages debian latest current release released date year number many much list name all'.split(
    ' ',
  ),
);

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201c\u201d"'`]/g, '')
    .replace(/[^\p{L}\p{N}.+~:-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The things the query is about: quoted terms, identifiers, versions, dates, capitalised names. */
export function extractSlots(query: string): string[] {
  const slots = new Set<string>();
  for (const match of query.matchAll(/["'`\u201c\u2018]([^"'`\u201d\u2019]{2,60})["'`\u201d\u2019]/g))
    if (match[1]) slots.add(normalise(match[1]));
  for (const match of query.matchAll(new RegExp(VERSION.source, 'g'))) slots.add(normalise(match[0]));
  for (const match of query.matchAll(new RegExp(DATE.source, 'gi'))) slots.add(normalise(match[0]));
  // The operands of a comparison ("bash and dash", "gzip vs xz") are what it is about.
  for (const match of query.matchAll(/([\p{L}\p{N}][\p{L}\p{N}.+-]*) (?:and|vs\.?|versus|or) ([\p{L}\p{N}][\p{L}\p{N}.+-]*)/giu))
    for (const operand of [match[1], match[2]]) if (operand && !STOP.has(operand.toLowerCase())) slots.add(normalise(operand));
  // Identifiers such as package names (libssl3, python3-yaml, g++) and capitalised names.
  for (const token of query.split(/[\s,;:?!()]+/)) {
    const bare = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+]+$/gu, '');
    if (bare.length < 2 || STOP.has(bare.toLowerCase())) continue;
    const identifier = /[a-z][a-z0-9]*[-+.][a-z0-9+.-]+|[a-z]+\d[a-z0-9]*/i.test(bare);
    const capitalised = /^[A-Z][\p{L}\p{N}]+/u.test(bare) && query.indexOf(bare) > 0;
    if (identifier || capitalised) slots.add(normalise(bare));
  }
  // A slot that is part of a longer slot adds nothing.
  const all = [...slots].filter((s) => s.length > 0);
  return all.filter((slot) => !all.some((other) => other !== slot && other.includes(slot)));
}

export function detectIntents(query: string): IntentKind[] {
  return (Object.keys(INTENT_CUES) as IntentKind[]).filter((kind) => INTENT_CUES[kind].test(query));
}

function intentCovered(kind: IntentKind, answer: string, slots: string[], normalisedAnswer: string): boolean {
  switch (kind) {
    case 'date':
      return DATE.test(answer);
    case 'quantity':
      return NUMBER.test(answer.replace(new RegExp(DATE.source, 'gi'), ''));
    case 'version':
      return VERSION.test(answer);
    case 'compare':
      return slots.filter((slot) => normalisedAnswer.includes(slot)).length >= Math.min(2, slots.length) && slots.length > 0;
    case 'enumerate':
      return answer.split(/,|;|\n|\band\b/).filter((part) => part.trim().length > 0).length >= 2;
    case 'cause':
      return CAUSAL.test(answer);
    case 'procedure':
      return PROCEDURAL.test(answer);
    case 'owner':
      return OWNER.test(answer);
    case 'predict':
      return FUTURE.test(answer) || DATE.test(answer);
    case 'define':
      return answer.trim().split(/\s+/).length >= 4;
  }
}

export function intentCoverage(query: string, answer: string, abstained = false): IntentCoverage {
  const kinds = detectIntents(query);
  const slotTexts = extractSlots(query);
  const usable = !abstained && answer.trim().length > 0;
  const normalisedAnswer = normalise(answer);
  const intents = kinds.map((kind) => ({ kind, covered: usable && intentCovered(kind, answer, slotTexts, normalisedAnswer) }));
  const slots = slotTexts.map((text) => ({ text, covered: usable && normalisedAnswer.includes(text) }));
  const total = intents.length + 0.5 * slots.length;
  if (total === 0) return { ic: null, intents, slots };
  const covered = intents.filter((i) => i.covered).length + 0.5 * slots.filter((s) => s.covered).length;
  return { ic: covered / total, intents, slots };
}
