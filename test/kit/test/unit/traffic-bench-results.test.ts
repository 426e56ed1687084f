/** The traffic benchmark's raw records and RESULTS.md rendered from several runs (test/kit/src/traffic/bench-records.ts, results-report.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  TRAFFIC_RUN_RECORD_VERSION,
  checkRunsComparable,
  readTrafficRun,
  trialRecordOf,
  type CleanPhase,
  type TrafficRunHeader,
  type TrafficTrialRecord,
  type TrialRow,
} from '../../src/traffic/bench-records.ts';
import { goalShare, renderTrafficResults, replayCost } from '../../src/traffic/results-report.ts';

const root = mkdtempSync(join(tmpdir(), 'traffic-bench-results-'));
after(() => rmSync(root, { recursive: true, force: true }));

const header = (stamp: string, over: Partial<TrafficRunHeader> = {}): TrafficRunHeader => ({
  version: TRAFFIC_RUN_RECORD_VERSION,
  stamp,
  command: `npx tsx bench/traffic/run.ts --packages 25 --trials 1 --seed ${stamp.length}`,
  startedAt: `${stamp.slice(0, 10)}T${stamp.slice(11, 13)}:${stamp.slice(14, 16)}:00.000Z`,
  endedAt: `${stamp.slice(0, 10)}T23:59:00.000Z`,
  machine: '2 cores (test cpu), 24 GiB, Debian 12, Node v20',
  loadAtStart: [1.5, 2, 3],
  loadAtEnd: [4, 5, 6.25],
  rag: 'reference',
  samples: 5,
  alpha: 0.005,
  probes: 10,
  interval: 4,
  rate: 10,
  asked: 12,
  seed: 7,
  sentinelEnv: {},
  faults: ['vectors-overwritten:garbage', 'unpublished-knowledge'],
  packages: [25],
  trialsPerFault: 1,
  cleanAnswers: 1000,
  quietSeconds: 30,
  timeoutSeconds: 180,
  profiledAfter: 15,
  ...over,
});

const clean = (packages: number, over: Partial<CleanPhase> = {}): CleanPhase => ({
  blind: { contentMeasured: 100, contentBad: 1, spotChecks: 4, spotDisagree: 0 },
  packages,
  knowledgeIds: 63,
  asked: 12,
  sent: 1010,
  answersRead: 1000,
  skipped: 0,
  seconds: 125,
  incidents: 0,
  actions: 0,
  trafficAnomalies: 0,
  goldenAnomalies: 0,
  flagged: 2,
  confirmed: 0,
  rejected: 2,
  replayQueries: 12,
  replayConfirmed: 0,
  replayRejected: 10,
  quietCpuPerSecond: 0.17,
  trafficCpuPerSecond: 0.2,
  ...over,
});

const trial = (fault: string, over: Partial<TrafficTrialRecord> = {}): TrafficTrialRecord => ({
  packages: 25,
  fault,
  target: 'apt/jq',
  askedPerMinute: 12,
  userQuestions: 3,
  userAnswersChanged: 2,
  harmless: false,
  injectedAt: 1_796_547_669_183,
  detectedS: 10,
  trafficDetectedS: 10,
  trafficAnomalies: 3,
  goldenAnomalies: 0,
  finalCause: fault === 'unpublished-knowledge' ? 'unpublished_knowledge' : 'vector_index_corruption',
  finalConfidence: 0.9,
  verifiedS: 20,
  actions: ['rebuild_index_incremental:succeeded'],
  outcome: 'healed',
  figures: { flagged: 1, confirmed: 1, rejected: 0, replayQueries: 9, replayConfirmed: 6, replayRejected: 0 },
  blind: { contentMeasured: 10, contentBad: 0, spotChecks: 0, spotDisagree: 0 },
  seconds: 40,
  ...over,
});

function runDir(name: string, files: { header?: unknown; clean?: unknown[]; trials?: unknown[]; raw?: Record<string, string> }): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (files.header !== undefined) writeFileSync(join(dir, 'run.json'), JSON.stringify(files.header));
  if (files.clean !== undefined) writeFileSync(join(dir, 'clean.jsonl'), files.clean.map((c) => `${JSON.stringify(c)}\n`).join(''));
  if (files.trials !== undefined) writeFileSync(join(dir, 'trials.jsonl'), files.trials.map((t) => `${JSON.stringify(t)}\n`).join(''));
  for (const [file, text] of Object.entries(files.raw ?? {})) writeFileSync(join(dir, file), text);
  return dir;
}

/** A full trial row as run.ts appends it to .runs/…/trials.jsonl: the ProbeResult and report carry the user's query. */
const fullRow = (query: string): TrialRow =>
  ({
    packages: 200,
    askedPerMinute: 30,
    seconds: 50,
    figures: { flagged: 1, confirmed: 1, rejected: 0, replayQueries: 6 },
    blind: { contentMeasured: 5, contentBad: 0, spotChecks: 1, spotDisagree: 0 },
    result: {
      plan: { fault: 'vectors-overwritten:garbage', target: 'apt/curl' },
      trial: {
        injectedAt: 1000,
        detectedAt: 6000,
        verifiedAt: 21_000,
        outcome: 'healed',
        actions: [{ intent: 'rebuild_index_incremental', statuses: ['started', 'succeeded'] }],
        firstAnomaly: { query, origin: 'traffic' },
        finalReport: {
          root_cause: 'vector_index_corruption',
          confidence: 0.95,
          affected_probes: [{ probe_id: 't', probe_version: 1, query }],
        },
      },
      firstTrafficAnomaly: { query },
      trafficDetectedAt: 6000,
      trafficAnomalies: 4,
      goldenAnomalies: 0,
      userQuestions: 3,
      userAnswersChanged: 3,
      harmless: false,
    },
  }) as unknown as TrialRow;

test('two runs render one RESULTS: both headers, both clean phases, the per-kind summary over both, every trial tagged with its run', () => {
  const a = runDir('a', {
    header: header('2026-12-06T20-00-00'),
    clean: [clean(25)],
    trials: [
      trial('vectors-overwritten:garbage'),
      trial('unpublished-knowledge', {
        harmless: true,
        userAnswersChanged: 0,
        outcome: 'harmless',
        detectedS: undefined,
        trafficDetectedS: undefined,
        trafficAnomalies: 0,
        finalCause: undefined,
        finalConfidence: undefined,
        verifiedS: undefined,
        actions: [],
        figures: { flagged: 0, confirmed: 0, rejected: 0, replayQueries: 0, replayConfirmed: 0, replayRejected: 0 },
      }),
    ],
    raw: { 'notes.txt': 'the first run was cut off by the session end\n' },
  });
  const b = runDir('b', {
    header: header('2026-12-07T01-00-00', { endedAt: undefined, loadAtEnd: [9, 9, 9] }),
    clean: [clean(25, { answersRead: 2000, incidents: 1 })],
    trials: [
      trial('vectors-overwritten:garbage', { target: 'apt/zstd' }),
      trial('vectors-overwritten:garbage', { outcome: 'timeout', verifiedS: undefined }),
    ],
  });
  const runs = [readTrafficRun(a), readTrafficRun(b)];
  assert.deepEqual(checkRunsComparable(runs, false), []);
  const md = renderTrafficResults(runs);
  // Both headers, with their commands and loads.
  assert.match(md, /\*\*2026-12-06T20-00-00\*\*: `npx tsx bench\/traffic\/run\.ts --packages 25 --trials 1 --seed 19`/);
  assert.match(md, /\*\*2026-12-07T01-00-00\*\*.*cut off or still going.*9\.00 \/ 9\.00 \/ 9\.00 at the end/);
  // Both clean phases, tagged.
  assert.match(md, /\| 2026-12-06T20-00-00 \| 25 \(63 ids, 12 asked\) \| 1000 \(0 skipped\)/);
  assert.match(md, /\| 2026-12-07T01-00-00 \| 25 \(63 ids, 12 asked\) \| 2000 \(0 skipped\) \| 125 \| 16\.00 \| \*\*1\*\*/);
  // Three garbage trials from two runs: 3 healed-or-not, the goal 2 of 3, the minimum met.
  assert.match(
    md,
    /\| 25 \| vectors-overwritten:garbage \| 3 \(2 runs\) \| 0 \| 3\/3 \| 10\.0 \| 3\/3 \| 2\/3 \| 20\.0 \| \*\*2\/3 \(67%\)\*\* \| yes \|/,
  );
  assert.match(
    md,
    /\| 25 \| unpublished-knowledge \| 1 \(1 run\) \| 1 \| 0\/0 \| — \| 0\/0 \| 0\/0 \| — \| \*\*0\/0\*\* \| no \(1 of 3\) \|/,
  );
  assert.match(md, /\| 25 \| \*\*all kinds\*\* \| 4 \| .*\*\*2\/3 \(67%\)\*\* \|/);
  // Every trial row names its run.
  assert.equal(md.match(/^\| 2026-12-06T20-00-00 \| 25 \| /gm)?.length, 2);
  assert.equal(md.match(/^\| 2026-12-07T01-00-00 \| 25 \| /gm)?.length, 2);
  assert.match(md, /\| 2026-12-07T01-00-00 \| 25 \| vectors-overwritten:garbage \| apt\/zstd \|/);
  assert.match(md, /- 2026-12-06T20-00-00: the first run was cut off by the session end/);
  // Replay cost: 2 clean phases (10 rejected queries, 2 rejected segments each) and 3 confirmed segments of 6 queries.
  assert.match(md, /per confirmed segment: \*\*6\.0 \(18 \/ 3\)\*\*; per rejected segment: \*\*5\.0 \(20 \/ 4\)\*\*/);
  assert.doesNotMatch(md, /Mixed settings/);
});

test('a full .runs trial row is read as its redacted record: no query text survives', () => {
  const query = 'my card 4111 1111 1111 1111 was charged twice, jq maintainer?';
  const dir = runDir('full', { header: header('2026-12-06T21-00-00'), clean: [], trials: [fullRow(query)] });
  const [record] = readTrafficRun(dir).trials;
  assert.deepEqual(record, {
    packages: 200,
    fault: 'vectors-overwritten:garbage',
    target: 'apt/curl',
    askedPerMinute: 30,
    userQuestions: 3,
    userAnswersChanged: 3,
    harmless: false,
    injectedAt: 1000,
    detectedS: 5,
    trafficDetectedS: 5,
    trafficAnomalies: 4,
    goldenAnomalies: 0,
    finalCause: 'vector_index_corruption',
    finalConfidence: 0.95,
    verifiedS: 20,
    actions: ['rebuild_index_incremental:succeeded'],
    outcome: 'healed',
    figures: { flagged: 1, confirmed: 1, rejected: 0, replayQueries: 6 },
    blind: { contentMeasured: 5, contentBad: 0, spotChecks: 1, spotDisagree: 0 },
    seconds: 50,
  });
  assert.doesNotMatch(JSON.stringify(trialRecordOf(fullRow(query))), /4111|charged|maintainer/);
  // Records without the replay split by outcome are counted as left out of the cost figure.
  assert.match(renderTrafficResults([readTrafficRun(dir)]), /1 phase\(s\) of runs recorded before the split by outcome are left out/);
});

test('a run directory missing a file, or whose records do not parse, is refused naming the file, line and field', () => {
  const good = { header: header('2026-12-06T22-00-00'), clean: [clean(25)], trials: [trial('unpublished-knowledge')] };
  assert.throws(() => readTrafficRun(runDir('no-trials', { header: good.header, clean: good.clean })), /no-trials\/trials\.jsonl: missing/);
  assert.throws(() => readTrafficRun(runDir('no-header', { clean: good.clean, trials: good.trials })), /no-header\/run\.json: missing/);
  assert.throws(
    () => readTrafficRun(runDir('bad-json', { ...good, raw: { 'clean.jsonl': `${JSON.stringify(clean(25))}\n{"packages": 25,\n` } })),
    /bad-json\/clean\.jsonl:2: not JSON/,
  );
  const { rag: _rag, ...noRag } = header('2026-12-06T22-00-00');
  assert.throws(() => readTrafficRun(runDir('no-rag', { ...good, header: noRag })), /no-rag\/run\.json: field rag is missing/);
  assert.throws(
    () => readTrafficRun(runDir('odd-rag', { ...good, header: { ...good.header, rag: 'flowise' } })),
    /odd-rag\/run\.json: field rag is "flowise", not reference or langchain/,
  );
  assert.throws(
    () =>
      readTrafficRun(
        runDir('bad-trial', { ...good, trials: [trial('unpublished-knowledge'), { ...trial('x'), askedPerMinute: 'often' }] }),
      ),
    /bad-trial\/trials\.jsonl:2: field askedPerMinute is not a number/,
  );
  assert.throws(
    () => readTrafficRun(runDir('bad-blind', { ...good, clean: [{ ...clean(25), blind: { contentMeasured: 1 } }] })),
    /bad-blind\/clean\.jsonl:1: field blind\.contentBad is missing/,
  );
  const { outcome: _outcome, ...noOutcome } = fullRow('q').result.trial;
  assert.throws(
    () =>
      readTrafficRun(runDir('bad-full', { ...good, trials: [{ ...fullRow('q'), result: { ...fullRow('q').result, trial: noOutcome } }] })),
    /bad-full\/trials\.jsonl:1: field result\.trial\.outcome is missing/,
  );
});

test('runs of another RAG or other golden probes are refused unless --allow-mixed, and then the header says so', () => {
  const reference = readTrafficRun(runDir('ref', { header: header('2026-12-06T10-00-00'), clean: [], trials: [] }));
  const langchain = readTrafficRun(runDir('lc', { header: header('2026-12-06T11-00-00', { rag: 'langchain' }), clean: [], trials: [] }));
  const fewerProbes = readTrafficRun(runDir('p5', { header: header('2026-12-06T12-00-00', { probes: 5 }), clean: [], trials: [] }));
  const slower = readTrafficRun(runDir('i8', { header: header('2026-12-06T13-00-00', { interval: 8 }), clean: [], trials: [] }));
  assert.throws(() => checkRunsComparable([reference, langchain], false), /--allow-mixed.*lc has rag langchain, .*ref has rag reference/);
  assert.throws(() => checkRunsComparable([reference, fewerProbes], false), /p5 has probes 5/);
  assert.throws(() => checkRunsComparable([reference, slower], false), /i8 has interval 8/);
  assert.throws(() => checkRunsComparable([], false), /no runs/);
  const mixed = checkRunsComparable([reference, langchain], true);
  assert.equal(mixed.length, 1);
  assert.match(
    renderTrafficResults([reference, langchain], { mixed }),
    /\*\*Mixed settings \(merged with --allow-mixed\):\*\* .*lc has rag langchain/,
  );
});

test('the goal counts harmful faults on knowledge asked at least once a minute, detected within 5 minutes and healed', () => {
  const trials = [
    trial('a', { detectedS: 299.9 }), // met
    trial('a', { detectedS: 300 }), // met (within 5 minutes)
    trial('a', { detectedS: 301 }), // detected too late
    trial('a', { detectedS: undefined, trafficDetectedS: undefined }), // not detected (healed by chance would not count)
    trial('a', { outcome: 'timeout' }), // detected, not healed
    trial('a', { outcome: 'escalated' }), // detected, not healed
    trial('a', { askedPerMinute: 0.5, outcome: 'timeout' }), // asked too rarely: not in the denominator
    trial('a', { harmless: true, outcome: 'harmless' }), // harmless: not in the denominator
    trial('a', { detectedS: 40, trafficDetectedS: undefined }), // detected by a golden probe only: counts
  ];
  assert.deepEqual(goalShare(trials), { met: 3, of: 7 });
  assert.deepEqual(goalShare([]), { met: 0, of: 0 });
});

test('replay cost sums the replayed queries by outcome over the segments of that outcome', () => {
  const run = {
    dir: 'r',
    header: header('2026-12-06T10-00-00'),
    clean: [clean(25), clean(200, { replayRejected: undefined })],
    trials: [
      trial('a'),
      trial('a', { figures: { flagged: 2, confirmed: 1, rejected: 1, replayQueries: 20, replayConfirmed: 9, replayRejected: 8 } }),
    ],
    notes: [],
  };
  assert.deepEqual(replayCost([run]), { confirmedQueries: 15, confirmed: 2, rejectedQueries: 18, rejected: 3, phasesWithoutSplit: 1 });
});

test('a run renders the same from its .runs full rows as from its kept, redacted copy (run.ts and merge.ts print one table)', () => {
  const rows = [fullRow('jq maintainer?'), { ...fullRow('curl version?'), packages: 25 }];
  const h = header('2026-12-06T09-00-00');
  const full = readTrafficRun(runDir('as-run', { header: h, clean: [clean(25)], trials: rows }));
  const kept = readTrafficRun(runDir('as-kept', { header: h, clean: [clean(25)], trials: rows.map(trialRecordOf) }));
  const asRunTsWritesIt = { dir: 'x', header: h, clean: [clean(25)], trials: rows.map(trialRecordOf), notes: [] };
  assert.equal(renderTrafficResults([full]), renderTrafficResults([kept]));
  assert.equal(renderTrafficResults([asRunTsWritesIt]), renderTrafficResults([kept]));
  assert.doesNotMatch(renderTrafficResults([kept]), /maintainer\?|version\?/);
});
