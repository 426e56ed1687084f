import type { RootCauseDetector } from './root-cause-detector.ts';
import { catalogued } from './support/detector-helpers.ts';

/**
 * Parser bug: the same chunk (id and knowledge version) carries different text online than in the
 * baseline: the document was parsed (chunked) differently. Looks at chunk text hashes of the context.
 */
export const parserBugDetector: RootCauseDetector = {
  ...catalogued('parser_bug'),
  readme: { looksAt: 'chunk text hashes', signature: 'the same chunk id and version with different text online' },
  detect({ diff }) {
    const changed = diff.chunks.text_changed;
    const score = changed.length === 0 ? 0 : diff.query.rewritten_equal ? 0.95 : 0.6;
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: [...new Set(changed.map((c) => c.knowledge_id))],
      measurements: changed.map((c) => ({
        claim_kind: 'chunk_pollution' as const,
        subject: c.chunk_id,
        metric: 'chunk_text_sha256_equal',
        observed: 0,
        baseline: 1,
      })),
    };
  },
};
