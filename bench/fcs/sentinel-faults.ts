/**
 * FCS v1 against v2 as the sentinel's sense, without the scheduler's timing: the reference RAG pair
 * (online + baseline, real qdrant-local), the sentinel's ProbeRunner with each scorer on the same
 * probes; a clean round (every anomaly is false), then each fault the reference RAG can inject that
 * should move the FCS: how many touched probes show fcs_drop (and any anomaly) per scorer, and how many
 * untouched probes raise anything. The timing-based integration test
 * (services/sentinel/test/integration/fault-detection.test.ts) needs a quiet machine; this does not.
 *
 *   FCS_BENCH_PACKAGES=30 npx tsx bench/fcs/sentinel-faults.ts [--out bench/fcs/sentinel-faults.json]
 */
import { ragClientWithHeaders, callFaultAdmin } from '@rag-immune/rag-contract';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import type { ScorerVersion } from '@rag-immune/fcs';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions, startReferenceRagPair, touchedByTokenizerAnomaly } from '@rag-immune/reference-rag/testing';
import { ProbeRunner, defaultThresholds, probesFromQuestions, type GoldenProbe } from '@rag-immune/probing';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'bench/fcs/sentinel-faults.json' } } });
const PACKAGES = Number(process.env.FCS_BENCH_PACKAGES ?? 30);
const logger = pino({ level: 'warn' });
const rags = await startReferenceRagPair({
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  packages: PACKAGES,
  label: 'bench-fcs-faults',
  logger,
});

// The integration test's probe selection: every 7th question about the indexed packages.
const questions = loadQuestions().filter((q) => rags.knowledgeIds.has(q.knowledge_id));
const probes: GoldenProbe[] = probesFromQuestions(questions.filter((_, i) => i % 7 === 0).slice(0, 12), 'bf');

const runners: Record<ScorerVersion, ProbeRunner> = {} as Record<ScorerVersion, ProbeRunner>;
for (const version of ['v1', 'v2'] as const) {
  const fcs = await FactConsistencyScorer.load({ scorerVersion: version, intraOpNumThreads: 1, cache: false, logger: false });
  runners[version] = new ProbeRunner({
    online: ragClientWithHeaders(rags.onlineUrl, {}, 60_000),
    baseline: ragClientWithHeaders(rags.baselineUrl, {}, 60_000),
    fcs,
    tracer: trace.getTracer('bench-fcs-faults'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 60_000,
    callAttempts: 1,
    version: 'bench',
  });
}

interface Outcome {
  probe: string;
  touched: boolean;
  anomaly: boolean;
  signals: string[];
  fcs_online: number | null | undefined;
  fcs_baseline: number | null | undefined;
}
async function round(version: ScorerVersion, touched: (p: GoldenProbe) => boolean): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const probe of probes) {
    const r = await runners[version].run(probe);
    out.push({
      probe: probe.id,
      touched: touched(probe),
      anomaly: r.anomaly,
      signals: r.anomaly_signals,
      fcs_online: r.online.signals?.fcs,
      fcs_baseline: r.baseline.signals?.fcs,
    });
  }
  return out;
}

const firstHalf = (ids: string[]) => ids.slice(0, Math.ceil(ids.length / 2));
const ids = [...new Set(probes.map((p) => p.expected_sources[0] as string))];
const FAULTS: { kind: string; body: Record<string, unknown>; touches: (p: GoldenProbe, affected: Set<string> | null) => boolean }[] = [
  {
    kind: 'generator-inconsistency',
    body: { scope: { knowledge_ids: firstHalf(ids) } },
    touches: (p, a) => a?.has(p.expected_sources[0] ?? '') ?? true,
  },
  {
    kind: 'vector-index-corruption',
    body: { mode: 'zero', scope: { knowledge_ids: firstHalf(ids) } },
    touches: (p, a) => a?.has(p.expected_sources[0] ?? '') ?? true,
  },
  { kind: 'reranker-drift', body: {}, touches: () => true },
  {
    kind: 'parser-bug',
    body: { mode: 'merge-sections', scope: { knowledge_ids: firstHalf(ids) } },
    touches: (p, a) => a?.has(p.expected_sources[0] ?? '') ?? true,
  },
  { kind: 'tokenizer-anomaly', body: {}, touches: (p) => touchedByTokenizerAnomaly(p.query) },
];

const report: Record<
  string,
  Record<ScorerVersion, { touched: number; fcs_drop: number; any_anomaly: number; untouched_anomalies: number; outcomes: Outcome[] }>
> = {};
const summarise = (outcomes: Outcome[]) => ({
  touched: outcomes.filter((o) => o.touched).length,
  fcs_drop: outcomes.filter((o) => o.touched && o.signals.includes('fcs_drop')).length,
  any_anomaly: outcomes.filter((o) => o.touched && o.anomaly).length,
  untouched_anomalies: outcomes.filter((o) => !o.touched && o.anomaly).length,
  outcomes,
});
try {
  report.clean = { v1: summarise(await round('v1', () => false)), v2: summarise(await round('v2', () => false)) };
  process.stderr.write(
    `clean: v1 ${report.clean.v1.untouched_anomalies} / v2 ${report.clean.v2.untouched_anomalies} false anomalies of ${probes.length}\n`,
  );
  for (const fault of FAULTS) {
    const injected = await callFaultAdmin(rags.onlineUrl, 'POST', fault.kind, fault.body);
    const affected = injected.fault?.affected_knowledge_ids ? new Set(injected.fault.affected_knowledge_ids) : null;
    try {
      const touched = (p: GoldenProbe): boolean => fault.touches(p, affected);
      report[fault.kind] = { v1: summarise(await round('v1', touched)), v2: summarise(await round('v2', touched)) };
      const r = report[fault.kind]!;
      process.stderr.write(
        `${fault.kind}: touched ${r.v1.touched}; fcs_drop v1 ${r.v1.fcs_drop} v2 ${r.v2.fcs_drop}; any anomaly v1 ${r.v1.any_anomaly} v2 ${r.v2.any_anomaly}; untouched anomalies v1 ${r.v1.untouched_anomalies} v2 ${r.v2.untouched_anomalies}\n`,
      );
    } finally {
      await callFaultAdmin(rags.onlineUrl, 'DELETE', fault.kind);
    }
  }
} finally {
  await rags.close();
}
writeFileSync(
  values.out,
  `${JSON.stringify({ packages: PACKAGES, probes: probes.length, thresholds: defaultThresholds, report }, null, 2)}\n`,
);
process.exit(0);
