import { z } from 'zod';
import { chunkFields } from '../generation/extractive-generator.ts';
import { renderRecord } from '@rag-immune/debian-knowledge';
import { validAt, type KnowledgeRecord } from '@rag-immune/debian-knowledge';
import type { KnowledgeSource } from '@rag-immune/debian-knowledge';
import { containsTerms } from '../text/terms.ts';

/** One labelled question: asked as of `as_of`, answered by `knowledge_id`; baseline expectation as of the pin. */
export const LabelledQuestion = z.object({
  id: z.string(),
  kind: z.enum(['latest_version', 'release_date', 'uploader', 'installed_size', 'maintainer']),
  question: z.string(),
  knowledge_id: z.string(),
  as_of: z.string().datetime(),
  expected: z.string(),
  baseline_as_of: z.string().datetime(),
  expected_baseline: z.string().nullable(),
});
export type LabelledQuestion = z.infer<typeof LabelledQuestion>;

const TEMPLATES: { kind: LabelledQuestion['kind']; source: string; field: string; ask: (subject: string) => string }[] = [
  { kind: 'latest_version', source: 'debian-changelog', field: 'Version', ask: (s) => `What is the latest version of ${s}?` },
  { kind: 'release_date', source: 'debian-changelog', field: 'Released', ask: (s) => `When was the latest version of ${s} released?` },
  { kind: 'uploader', source: 'debian-changelog', field: 'Uploaded by', ask: (s) => `Who uploaded the latest release of ${s}?` },
  {
    kind: 'installed_size',
    source: 'apt-metadata',
    field: 'Installed-Size',
    ask: (s) => `What is the installed size of the ${s} package?`,
  },
  { kind: 'maintainer', source: 'apt-metadata', field: 'Maintainer', ask: (s) => `Who maintains the ${s} package?` },
];

function factAt(records: KnowledgeRecord[], knowledgeId: string, field: string, t: Date): string | null {
  const record = records.find((candidate) => candidate.knowledgeId === knowledgeId && validAt(candidate, t));
  return record === undefined ? null : (chunkFields(renderRecord(record)).get(field) ?? null);
}

/**
 * Builds the labelled set deterministically from the knowledge: for every knowledge id, one question
 * per template of its source, the expected answer being the field of the version valid at `asOf`
 * (and, for the baseline, at `baselineAsOf`). Everything comes from the sources' own records.
 */
export function buildQuestions(sources: KnowledgeSource[], asOf: Date, baselineAsOf: Date): LabelledQuestion[] {
  const out: LabelledQuestion[] = [];
  for (const source of sources) {
    const records = source.recordsPublishedBy(asOf);
    const baselineRecords = source.recordsPublishedBy(baselineAsOf);
    const ids = [...new Set(records.map((record) => record.knowledgeId))].sort();
    for (const template of TEMPLATES.filter((candidate) => candidate.source === source.name)) {
      for (const knowledgeId of ids) {
        const expected = factAt(records, knowledgeId, template.field, asOf);
        if (expected === null || expected === '') continue;
        const subject = knowledgeId.slice(knowledgeId.indexOf('/') + 1);
        out.push({
          id: `${template.kind}:${knowledgeId}`,
          kind: template.kind,
          question: template.ask(subject),
          knowledge_id: knowledgeId,
          as_of: asOf.toISOString(),
          expected,
          baseline_as_of: baselineAsOf.toISOString(),
          expected_baseline: factAt(baselineRecords, knowledgeId, template.field, baselineAsOf),
        });
      }
    }
  }
  return out;
}

/** Exact-answer match: the expected fact appears whole in the answer (term boundaries, case-insensitive). */
export function isExactAnswer(answer: string, expected: string): boolean {
  return containsTerms(answer, expected);
}
