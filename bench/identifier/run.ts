/**
 * Identifier benchmark on the real stack: for several seeds (each its own reference RAG pair of a
 * different size, its own probe set and its own fault scopes), clean rounds and then every fault
 * kind and mode of the reference RAG, including the evaluation-only seventh fault. Measures
 * localisation accuracy (cause and component), time from the first anomalous ProbeResult to the
 * report, confidence reliability (ECE, Brier) on these runs (none of them was used to fit the
 * calibration: that was seed "record", 25 packages, 12 probes), and wrong causes on clean rounds.
 *
 *   npm run bench:identifier -- [--seeds bench-a,bench-b,bench-c] [--packages 20,30,40] [--probes 10] [--clean-rounds 3]
 */
import { callFaultAdmin } from '@rag-immune/rag-contract';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { ProbeResult, RootCauseReport } from '@rag-immune/contracts';
import { loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { startIdentifierWorker } from '@rag-immune/identifier';
import { reliability } from '@rag-immune/identifier';
import { FAULT_SCENARIOS, selectProbes, type FaultScenario } from '@rag-immune/test-kit/identifier/scenarios';
import { ProbeDriver } from '@rag-immune/test-kit/identifier/probe-driver';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { cleanup, collectReports, identifierEnv, namespace } from '@rag-immune/test-kit/identifier/stack';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: 'bench-a,bench-b,bench-c' },
    packages: { type: 'string', default: '20,30,40' },
    probes: { type: 'string', default: '10' },
    'clean-rounds': { type: 'string', default: '3' },
    'max-rounds': { type: 'string', default: '4' },
    out: { type: 'string', default: 'bench/identifier/results.json' },
  },
});
const seeds = values.seeds!.split(',');
const sizes = values.packages!.split(',').map(Number);
const probeCount = Number(values.probes);
const cleanRounds = Number(values['clean-rounds']);
const maxRounds = Number(values['max-rounds']);
const logger = pino({ level: 'error' });

interface Outcome {
  seed: string;
  packages: number;
  kind: string;
  mode: string;
  expected: string;
  anomalies: number;
  report: Pick<RootCauseReport, 'root_cause' | 'affected_component' | 'confidence' | 'report_revision'> | null;
  cause_correct: boolean | null;
  component_correct: boolean | null;
  seconds_to_report: number | null;
  rounds: number;
}

const outcomes: Outcome[] = [];
const clean: { seed: string; rounds: number; anomalies: number; reports: number; wrong_causes: number }[] = [];

for (const [i, seed] of seeds.entries()) {
  const packages = sizes[i % sizes.length]!;
  const ns = namespace(`bench-${i}`);
  const rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages,
    label: `bench-identifier-${i}`,
    logger,
  });
  const { reports, bus } = await collectReports(ns);
  const worker = await startIdentifierWorker(identifierEnv(ns, { online: rags.onlineUrl, baseline: rags.baselineUrl }), logger);
  try {
    const probes = selectProbes(loadQuestions(), rags.knowledgeIds, probeCount, seed);
    const driver = await ProbeDriver.create({ online: rags.onlineUrl, baseline: rags.baselineUrl }, probes as never, await bus.publisher());
    const ids = [...new Set(probes.map((p) => p.expected_sources[0]!))];

    let anomalies = 0;
    for (let round = 0; round < cleanRounds; round += 1) anomalies += (await driver.round()).filter((r) => r.anomaly).length;
    await sleep(3000);
    clean.push({
      seed,
      rounds: cleanRounds,
      anomalies,
      reports: reports.length,
      wrong_causes: reports.filter((r) => r.root_cause !== 'unknown').length,
    });
    console.log(
      `[${seed}] ${packages} packages, ${probes.length} probes: ${cleanRounds} clean rounds, ${anomalies} anomalies, ${reports.length} reports`,
    );

    for (const scenario of FAULT_SCENARIOS)
      outcomes.push(await runScenario(seed, packages, scenario, driver, ids, reports, rags.onlineUrl));
  } finally {
    await worker.stop();
    await bus.stop();
    await rags.close();
    await cleanup(ns);
  }
}

async function runScenario(
  seed: string,
  packages: number,
  scenario: FaultScenario,
  driver: ProbeDriver,
  ids: string[],
  reports: RootCauseReport[],
  onlineUrl: string,
): Promise<Outcome> {
  const seen = reports.length;
  await callFaultAdmin(onlineUrl, 'POST', scenario.kind, scenario.body(ids, seed));
  let firstAnomaly: ProbeResult | undefined;
  let anomalies = 0;
  let report: RootCauseReport | undefined;
  let receivedAt = 0;
  let rounds = 0;
  try {
    while (rounds < maxRounds && report === undefined) {
      rounds += 1;
      const results = await driver.round();
      anomalies += results.filter((r) => r.anomaly).length;
      firstAnomaly ??= results.find((r) => r.anomaly);
      for (let wait = 0; wait < 30 && report === undefined; wait += 1) {
        report = reports.slice(seen).find((r) => r.report_revision === 1);
        if (report) receivedAt = Date.now();
        else await sleep(200);
      }
    }
  } finally {
    await callFaultAdmin(onlineUrl, 'DELETE', scenario.kind);
  }
  // Clean rounds until the incident closes, so the next fault opens a new one.
  for (let round = 0; round < 3; round += 1) {
    await driver.round();
    await sleep(1000);
  }
  const cause = report ? report.root_cause === scenario.cause : null;
  const component = report ? scenario.components.includes(report.affected_component) : null;
  const outcome: Outcome = {
    seed,
    packages,
    kind: scenario.kind,
    mode: scenario.mode,
    expected: scenario.cause,
    anomalies,
    report: report
      ? {
          root_cause: report.root_cause,
          affected_component: report.affected_component,
          confidence: report.confidence,
          report_revision: report.report_revision,
        }
      : null,
    cause_correct: cause,
    component_correct: component,
    seconds_to_report: report && firstAnomaly ? (receivedAt - firstAnomaly.occurred_at) / 1000 : null,
    rounds,
  };
  console.log(
    `[${seed}] ${scenario.kind}/${scenario.mode}: ${anomalies} anomalies, ` +
      (report
        ? `${report.root_cause}/${report.affected_component} @${report.confidence.toFixed(3)} in ${outcome.seconds_to_report?.toFixed(1)} s (${cause ? 'right' : 'WRONG'})`
        : 'no report'),
  );
  return outcome;
}

// Aggregate.
const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)} %`);
const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const rows: string[] = [
  '| fault | mode | runs | with anomalies | reported | cause right | component right | median s to report | p95 s |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const scenario of FAULT_SCENARIOS) {
  const mine = outcomes.filter((o) => o.kind === scenario.kind && o.mode === scenario.mode);
  const detected = mine.filter((o) => o.anomalies > 0);
  const reported = mine.filter((o) => o.report !== null);
  const times = reported.map((o) => o.seconds_to_report!).filter(Number.isFinite);
  rows.push(
    `| ${scenario.kind} | ${scenario.mode} | ${mine.length} | ${detected.length} | ${reported.length} | ${pct(reported.filter((o) => o.cause_correct).length, reported.length)} | ` +
      `${pct(reported.filter((o) => o.component_correct).length, reported.length)} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.95).toFixed(1)} |`,
  );
}
const six = outcomes.filter((o) => o.expected !== 'unknown' && o.report !== null);
const seventh = outcomes.filter((o) => o.expected === 'unknown' && o.report !== null);
const allReported = outcomes.filter((o) => o.report !== null);
const rel = reliability(allReported.map((o) => ({ confidence: o.report!.confidence, correct: o.cause_correct === true })));
const wrongConfidentSeventh = seventh.filter((o) => o.report!.root_cause !== 'unknown' && o.report!.confidence >= 0.5).length;
const summary = {
  machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
  seeds,
  sizes,
  probes: probeCount,
  six_faults: {
    reported: six.length,
    runs: outcomes.filter((o) => o.expected !== 'unknown').length,
    cause_accuracy: six.filter((o) => o.cause_correct).length / Math.max(1, six.length),
    component_accuracy: six.filter((o) => o.component_correct).length / Math.max(1, six.length),
  },
  seventh_fault: {
    reported: seventh.length,
    answers: seventh.map((o) => `${o.report!.root_cause}/${o.report!.affected_component}@${o.report!.confidence.toFixed(3)}`),
    wrong_confident: wrongConfidentSeventh,
  },
  reliability: rel,
  clean,
  outcomes,
};
writeFileSync(values.out!, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\n${rows.join('\n')}\n`);
console.log(
  `six faults: cause ${pct(six.filter((o) => o.cause_correct).length, six.length)}, component ${pct(six.filter((o) => o.component_correct).length, six.length)} of ${six.length} reports; ` +
    `seventh: ${summary.seventh_fault.answers.join(', ')}; reliability over ${rel.n} reports: ECE ${rel.ece.toFixed(3)}, Brier ${rel.brier.toFixed(3)}; ` +
    `clean rounds: ${clean.reduce((s, c) => s + c.rounds, 0)} rounds, ${clean.reduce((s, c) => s + c.wrong_causes, 0)} wrong causes, ${clean.reduce((s, c) => s + c.reports, 0)} reports`,
);
process.exit(0);
