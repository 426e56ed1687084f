import type { RootCauseDetector } from './root-cause-detector.ts';
import { catalogued } from './support/detector-helpers.ts';

/**
 * Tokenizer anomaly: the online RAG turned the same query into different text before embedding it
 * (zero-width joiners, lookalike hyphens/dots/pluses) while the baseline's normaliser did not.
 * Looks only at the query layer: rewritten query online vs baseline, suspicious characters.
 */
export const tokenizerAnomalyDetector: RootCauseDetector = {
  ...catalogued('tokenizer_anomaly'),
  readme: {
    looksAt: 'rewritten query',
    signature: "online rewritten query differs from the baseline's, with zero-width/lookalike characters",
  },
  detect({ result, diff }) {
    const { query } = diff;
    const suspicious = query.online_suspicious_chars > query.baseline_suspicious_chars;
    const score = query.rewritten_equal ? 0 : suspicious ? 0.95 : 0.4;
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: [],
      measurements:
        score === 0
          ? []
          : [
              {
                claim_kind: 'query_encoding_anomaly',
                subject: result.probe_id,
                metric: 'suspicious_chars_in_rewritten_query',
                observed: query.online_suspicious_chars,
                baseline: query.baseline_suspicious_chars,
              },
              {
                claim_kind: 'query_encoding_anomaly',
                subject: result.probe_id,
                metric: 'rewritten_query_equal',
                observed: 0,
                baseline: 1,
              },
            ],
    };
  },
};
