/**
 * Pooling across probes on the same knowledge (issue 39), replayed on bench/langchain-rag's recorded
 * clean runs (results/latest-runs.jsonl: 30 probes x 10 runs of Gemma 3 270M at temperature 0.7, one
 * online and one baseline sample each) through the product's code (@rag-immune/probing:
 * PooledEvidence, KnowledgePooledEvidence, withPoolAlarms, the exact Mann–Whitney null, the key-fact
 * frequency test, compareWithBaseline).
 *
 * The recording names no knowledge ids (its probes were picked from a knowledge set that has since
 * changed), so the probes are put in groups of `--group` that stand for probes sharing one knowledge
 * id: lcrag-i, lcrag-(i+10), lcrag-(i+20) for --group 3, as the probe-set builder spreads a
 * package's questions. Each probe keeps its own recorded answers and FCS.
 *
 * Null (clean rounds): every sample of either side drawn with replacement from that probe's 20
 * recorded samples of both sides (fixed seed), so the sides are exchangeable by construction; every
 * anomaly is a false one. Per setting: the probes' own detectors alone ("unpooled") and with the
 * knowledge pools ("pooled": own OR pool alarm, as the sentinel does with SENTINEL_KNOWLEDGE_POOL=on).
 *
 * Fault on a shared knowledge id: the online FCS of every probe in one group lowered by `shift`
 * (synthetic, on the recorded scores; no recorded sampled fault runs exist), the other groups
 * clean; rounds until the first fcs_drop on any probe of the group, each group in turn, `--trials`
 * seeds each. IC is not replayed (the probe queries cannot be rebuilt: see replay-pooled.ts).
 *
 * Usage: npx tsx bench/langchain-rag/replay-knowledge-pool.ts [--alphas 0.01,0.005] [--ks 3,5]
 *        [--rounds 200] [--shifts 0.15,0.3] [--trials 5] [--group 3] [--out bench/langchain-rag/RESULTS-knowledge-pool.md]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ProbeObservation } from '@rag-immune/contracts';
import {
  KnowledgePooledEvidence,
  PooledEvidence,
  compareWithBaseline,
  defaultThresholds,
  factFrequencyTest,
  mannWhitneyLessNull,
  modalAnswerIndex,
  withPoolAlarms,
  type AnswerComparison,
  type PooledVerdict,
} from '@rag-immune/probing';
import { seededRandom as seeded } from '@rag-immune/probing';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    alphas: { type: 'string', default: '0.01,0.005' },
    ks: { type: 'string', default: '3,5' },
    rounds: { type: 'string', default: '200' },
    shifts: { type: 'string', default: '0.15,0.3' },
    trials: { type: 'string', default: '5' },
    'max-rounds': { type: 'string', default: '40' },
    group: { type: 'string', default: '3' },
    out: { type: 'string', default: join(here, 'RESULTS-knowledge-pool.md') },
  },
});
const alphas = values.alphas.split(',').map(Number);
const ks = values.ks.split(',').map(Number);
const shifts = values.shifts.split(',').map(Number);
const [rounds, trials, maxRounds, group] = [values.rounds, values.trials, values['max-rounds'], values.group].map(Number) as [
  number,
  number,
  number,
  number,
];
if (
  alphas.some((a) => !(a > 0 && a < 1)) ||
  ks.some((k) => !Number.isInteger(k) || k < 2) ||
  ![rounds, trials, maxRounds].every((n) => Number.isInteger(n) && n >= 1) ||
  !(Number.isInteger(group) && group >= 2)
) {
  console.error('replay-knowledge-pool: --alphas in (0, 1), --ks integers >= 2, --rounds/--trials/--max-rounds >= 1, --group >= 2');
  process.exit(64);
}

interface Row {
  probe_id: string;
  online_answer: string;
  baseline_answer: string;
  online_fcs: number | null;
  baseline_fcs: number | null;
}
const runsFile = join(here, 'results', 'latest-runs.jsonl');
const rows: Row[] = readFileSync(runsFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);
const byProbe = new Map<string, Row[]>();
for (const row of rows) byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), row]);
const probeIds = [...byProbe.keys()];
const groups = Math.floor(probeIds.length / group);
/** The knowledge id a probe stands for: probes i, i + groups, i + 2 groups ... share one. */
const knowledgeOf = new Map(probeIds.map((id, i) => [id, i < groups * group ? `knowledge/${i % groups}` : `knowledge/alone-${i}`]));
const membersOf = (knowledge: string) => probeIds.filter((id) => knowledgeOf.get(id) === knowledge);

const observation = (fcs: number | null): ProbeObservation => ({
  call_status: 'ok',
  http_status: 200,
  error_message: null,
  trace_id: null,
  traceparent: null,
  latency_ms: 0,
  signals: { fcs, fcs_status: fcs === null ? 'not_scored' : 'scored', fcs_truncated: false, ic: null, kf_as_of: null, kf_age_days: null },
  retrieved_documents: [],
  component_versions: { embedder: null, reranker: null, generator: null },
  answer_hash: null,
});

interface Sample {
  answer: string;
  fcs: number | null;
}

/** A way of judging: the probes' own detectors, with or without knowledge pools. */
interface Judge {
  own: PooledEvidence;
  pools?: KnowledgePooledEvidence;
}
/** unpooled: own at alpha; pooled: own + pools at alpha each; equal: own + pools at alpha / 2 each (the unpooled budget). */
const VARIANTS = ['unpooled', 'pooled', 'equal'] as const;
type Variant = (typeof VARIANTS)[number];
const judges = (alpha: number): Record<Variant, Judge> => ({
  unpooled: { own: new PooledEvidence({ alpha }) },
  pooled: { own: new PooledEvidence({ alpha }), pools: new KnowledgePooledEvidence({ alpha }) },
  equal: { own: new PooledEvidence({ alpha: alpha / 2 }), pools: new KnowledgePooledEvidence({ alpha: alpha / 2 }) },
});

/** One sampled run of a probe (k a side, exchangeable draws), judged every way on the same samples. */
function run(
  probeId: string,
  k: number,
  alpha: number,
  random: () => number,
  shift: number,
  ways: Record<Variant, Judge>,
): Record<Variant, { signals: string[]; poolAlarm: boolean }> {
  const recorded = byProbe.get(probeId)!.flatMap((r): Sample[] => [
    { answer: r.online_answer, fcs: r.online_fcs },
    { answer: r.baseline_answer, fcs: r.baseline_fcs },
  ]);
  const draw = () => recorded[Math.floor(random() * recorded.length)]!;
  const online = Array.from({ length: k }, draw).map((s) => ({ ...s, fcs: s.fcs === null ? null : Math.max(0, s.fcs - shift) }));
  const baseline = Array.from({ length: k }, draw);
  const scores = (side: Sample[]) => side.flatMap((s) => (s.fcs === null ? [] : [s.fcs]));
  const fcs = { online: scores(online), baseline: scores(baseline) };
  const fcsTest = fcs.online.length === 0 || fcs.baseline.length === 0 ? null : mannWhitneyLessNull(fcs.online, fcs.baseline);
  const factsTest = factFrequencyTest(
    online.map((s) => s.answer),
    baseline.map((s) => s.answer),
  );
  const modalOnline = online[modalAnswerIndex(online.map((s) => s.answer))]!;
  const modalBaseline = baseline[modalAnswerIndex(baseline.map((s) => s.answer))]!;
  const answers: AnswerComparison = {
    answer_agreement: null,
    online_answer_vs_baseline_fcs: null,
    baseline_answer_vs_online_fcs: null,
    knowledge_update: false,
    altered_chunks: [],
    online_answer_empty: false,
    online_ungrounded_facts: [],
    baseline_ungrounded_facts: [],
    fact_replaced_on_same_evidence: false,
  };
  const judged = (pooled: PooledVerdict) =>
    compareWithBaseline(observation(modalOnline.fcs), observation(modalBaseline.fcs), defaultThresholds, {
      answers,
      samples: { count: k, alpha, fcs, ic: { online: [], baseline: [] } },
      pooled,
    }).signals.filter((s) => s === 'fcs_drop' || s === 'ic_drop' || s === 'answer_disagreement');
  const out = {} as Record<Variant, { signals: string[]; poolAlarm: boolean }>;
  for (const variant of VARIANTS) {
    const { own, pools } = ways[variant];
    const probeRun = own.observe(probeId, { fcs: fcsTest, ic: null, facts: factsTest });
    const poolVerdicts =
      pools?.observe(probeId, [knowledgeOf.get(probeId)!], { fcs: probeRun.verdict.fcs.e, ic: null, facts: probeRun.verdict.facts.e }) ??
      [];
    out[variant] = {
      signals: judged(withPoolAlarms(probeRun.verdict, poolVerdicts)),
      poolAlarm: poolVerdicts.some((v) => v.alarm.fcs || v.alarm.ic || v.alarm.facts),
    };
    probeRun.commit();
  }
  return out;
}

// Clean rounds: every probe once a round, `rounds` rounds, one seed per setting.
const nullRows: string[] = [];
for (const alpha of alphas)
  for (const k of ks) {
    const random = seeded(3900 + k);
    const ways = judges(alpha);
    let runs = 0;
    const anomalies: Record<Variant, number> = { unpooled: 0, pooled: 0, equal: 0 };
    const poolAlarms: Record<Variant, number> = { unpooled: 0, pooled: 0, equal: 0 };
    for (let round = 0; round < rounds; round++)
      for (const probeId of probeIds) {
        const r = run(probeId, k, alpha, random, 0, ways);
        runs++;
        for (const variant of VARIANTS) {
          if (r[variant].signals.length > 0) anomalies[variant]++;
          if (r[variant].poolAlarm) poolAlarms[variant]++;
        }
      }
    const per = (n: number) => `${n} (${((100 * n) / runs).toFixed(2)} %, ${n === 0 ? `${runs}+` : (runs / n).toFixed(0)} runs each)`;
    nullRows.push(
      `| ${alpha} | ${k} | ${runs} | **${per(anomalies.unpooled)}** | **${per(anomalies.pooled)}** (pool alarms ${poolAlarms.pooled}) | **${per(anomalies.equal)}** (pool alarms ${poolAlarms.equal}) | ${(1 / alpha).toFixed(0)} / ${(1 / (2 * alpha)).toFixed(0)} / ${(1 / alpha).toFixed(0)} |`,
    );
  }

// A fault on one shared knowledge id: rounds until the first fcs_drop of any of its probes.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.9 * (xs.length - 1))]!;
const faultRows: string[] = [];
for (const shift of shifts)
  for (const alpha of alphas)
    for (const k of ks) {
      const delays: Record<Variant, number[]> = { unpooled: [], pooled: [], equal: [] };
      const missed: Record<Variant, number> = { unpooled: 0, pooled: 0, equal: 0 };
      for (let g = 0; g < groups; g++)
        for (let trial = 0; trial < trials; trial++) {
          const faulty = new Set(membersOf(`knowledge/${g}`));
          const random = seeded(39_000 + 1000 * g + trial);
          const ways = judges(alpha);
          const at: Record<Variant, number> = { unpooled: 0, pooled: 0, equal: 0 };
          for (let round = 1; round <= maxRounds && VARIANTS.some((v) => at[v] === 0); round++)
            for (const probeId of faulty) {
              // Only the faulty group's probes matter here: the others' pools are separate.
              const r = run(probeId, k, alpha, random, shift, ways);
              for (const v of VARIANTS) if (at[v] === 0 && r[v].signals.includes('fcs_drop')) at[v] = round;
            }
          for (const v of VARIANTS)
            if (at[v] === 0) missed[v]++;
            else delays[v].push(at[v]);
        }
      // A missed trial counts as later than any found one: medians over all trials, "> N" past the cap.
      const show = (x: number) => (x > maxRounds ? `> ${maxRounds}` : String(x));
      const cell = (side: Variant) => {
        const all = [...delays[side], ...Array<number>(missed[side]).fill(maxRounds + 1)];
        return `${delays[side].length} of ${all.length}; ${show(median(all))} / ${show(p90(all))}`;
      };
      faultRows.push(
        `| ${shift} | ${alpha} | ${k} | ${groups * trials} | ${cell('unpooled')} | **${cell('pooled')}** | **${cell('equal')}** |`,
      );
    }

const command = `npx tsx ${relative(process.cwd(), fileURLToPath(import.meta.url))} ${process.argv.slice(2).join(' ')}`.trim();
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join('/');
const report = `# bench/langchain-rag — pooling across probes on the same knowledge, replayed

Written by \`${command}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC,
${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${load}
(shared machine; the replay is CPU-light; benches may overlap under the shared bench lock).

Input: \`bench/langchain-rag/results/latest-runs.jsonl\` (${rows.length} clean results, ${probeIds.length} probes; Gemma 3 270M at
temperature 0.7, recorded 2026-12-04). The recording names no knowledge ids, so the probes are grouped: ${groups} groups of
${group} (lcrag-i, lcrag-(i+${groups}), …) each stand for the probes of one knowledge id; every probe keeps its own recorded
answers and FCS. Each run draws k samples a side with replacement from the probe's ${2 * (rows.length / probeIds.length)} recorded samples of both
sides (fixed seeds): the sides are exchangeable, so in the clean rounds **every anomaly is a false one**. Signals decided by
the product's \`compareWithBaseline\`: fcs_drop (detector alarm and median drop > 0.15) and answer_disagreement (facts
alarm); IC not replayed. All three ways see the same samples. "Unpooled": each probe's own detectors at α
(SENTINEL_POOLED_TEST=on). "Pooled": the same plus one knowledge pool per group at α (SENTINEL_KNOWLEDGE_POOL=on,
SENTINEL_KNOWLEDGE_POOL_ALPHA = α; a pool alarms once 2 of its probes fed it). "Equal budget": own detectors and pools at
α / 2 each (SENTINEL_SAMPLE_ALPHA = SENTINEL_KNOWLEDGE_POOL_ALPHA = α / 2), the unpooled false-alarm budget per run.

## Clean rounds (${rounds} rounds × ${probeIds.length} probes)

The guarantee (services/sentinel/README.md): unpooled, at least 1 / α runs of a probe between its false anomalies on
average; pooled, false anomalies per probe run at most α + α (own detectors + its one pool), i.e. at least 1 / (2α)
runs per false anomaly.

| level α | k a side | runs | false anomalies unpooled | pooled | equal budget | guarantee: runs per false anomaly ≥ (unpooled / pooled / equal) |
| --- | --- | --- | --- | --- | --- | --- |
${nullRows.join('\n')}

## A fault on one knowledge id shared by ${group} probes

The online FCS of the ${group} probes of one group lowered by the shift (synthetic, on the recorded bimodal scores); each
of the ${groups} groups in turn, ${trials} seeds each; a round is one run of each of the group's probes. Rounds until the
first fcs_drop on any of them: trials detected within ${maxRounds} rounds, then the median / 90th percentile over all
trials (a missed trial counts as "> ${maxRounds}"). Each column spends
its false-alarm budget as in the table above (pooled: up to twice the unpooled one per run; equal budget: the same).

| FCS shift | level α | k a side | trials | rounds to detect, unpooled | pooled | equal budget |
| --- | --- | --- | --- | --- | --- | --- |
${faultRows.join('\n')}
`;
writeFileSync(values.out, report);
console.log(report);
