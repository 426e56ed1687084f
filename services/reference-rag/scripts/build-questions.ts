/**
 * Builds data/questions.jsonl deterministically from the knowledge on this machine:
 *   npx tsx services/reference-rag/scripts/build-questions.ts [--as-of 2026-11-29T00:00:00Z] [--baseline-as-of 2024-06-01T00:00:00Z]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { buildQuestions } from '../src/questions/question-set.ts';

const { values } = parseArgs({
  options: {
    'as-of': { type: 'string', default: '2026-11-29T00:00:00.000Z' },
    'baseline-as-of': { type: 'string', default: '2024-06-01T00:00:00.000Z' },
  },
});
const { sources } = loadDebianKnowledge();
const questions = buildQuestions(sources, new Date(values['as-of']!), new Date(values['baseline-as-of']!));
const path = fileURLToPath(new URL('../data/questions.jsonl', import.meta.url));
writeFileSync(path, questions.map((question) => JSON.stringify(question)).join('\n') + '\n');
const byKind = new Map<string, number>();
for (const question of questions) byKind.set(question.kind, (byKind.get(question.kind) ?? 0) + 1);
console.log(`${questions.length} questions → ${path}`, Object.fromEntries(byKind));
