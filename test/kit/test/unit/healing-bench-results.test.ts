/** bench/healing's kept records and the results page rendered from one or several runs (loop/healing-records.ts, healing-report.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  HEALING_RUN_RECORD_VERSION,
  readHealingRun,
  trialRowOf,
  type HealingCompoundRow,
  type HealingRun,
  type HealingRunHeader,
  type HealingTrialRow,
} from '../../src/loop/healing-records.ts';
import { matrixSpecs, renderHealingResults, specOf } from '../../src/loop/healing-report.ts';
import type { TrialResult } from '../../src/loop/trial.ts';

const root = mkdtempSync(join(tmpdir(), 'healing-bench-results-'));
after(() => rmSync(root, { recursive: true, force: true }));

const header = (stamp: string, over: Partial<HealingRunHeader> = {}): HealingRunHeader => ({
  version: HEALING_RUN_RECORD_VERSION,
  stamp,
  command: `npx tsx bench/healing/run.ts --rag langchain --trials 1 --kinds vectors-overwritten:garbage`,
  commit: 'abc1234',
  startedAt: `${stamp.slice(0, 10)}T${stamp.slice(11, 13)}:${stamp.slice(14, 16)}:00.000Z`,
  endedAt: `${stamp.slice(0, 10)}T23:59:00.000Z`,
  machine: '2 cores (test cpu), 24 GiB, Debian 12, Node v20',
  loadAtStart: [1, 2, 3],
  loadAtEnd: [4, 5, 6],
  rag: 'langchain',
  ragText: 'the LangChain RAG',
  packages: 25,
  probes: 10,
  interval: 20,
  samples: 5,
  alpha: 0.005,
  isolate: false,
  sentinelSettings: { SENTINEL_SAMPLES: '5' },
  sentinelEnvGiven: false,
  kinds: ['vectors-overwritten:garbage'],
  trialsPerKind: 1,
  compoundPairs: [],
  compoundTrialsPerPair: 0,
  clean: {
    rounds: 10,
    results: 100,
    anomalies: 1,
    reports: 0,
    actions: 0,
    onlineFcs: [0.5, 0.7],
    baselineFcs: [0.6],
    samples: [5],
    signals: ['fcs_drop'],
    calls: { calls: 1000, results: 100 },
  },
  notInjected: [],
  finished: true,
  ...over,
});

const trial = (kind: string, mode: string, outcome: TrialResult['outcome'], detectedS: number): TrialResult => ({
  plan: { kind, mode, fraction: 0.5, seed: 'bench-0' },
  body: {},
  affectedKnowledgeIds: ['changelog/a'],
  touched: ['loop-1'],
  injectStartedAt: 1_000,
  injectedAt: 2_000,
  harmed: ['loop-1'],
  detectedAt: 2_000 + detectedS * 1000,
  incidents: ['inc-1'],
  localised: outcome === 'healed',
  actions: [],
  rollbacks: 0,
  escalated: outcome === 'escalated',
  ...(outcome === 'healed' ? { verifiedAt: 2_000 + 100_000 } : {}),
  wrongRepairVerified: false,
  seenKnowledgeIds: ['changelog/a'],
  awaitingGrant: [],
  outcome,
  endedAt: 200_000,
});

function keep(run: HealingRun): string {
  const dir = join(root, run.header.stamp);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run.header));
  writeFileSync(join(dir, 'trials.jsonl'), [...run.trials, ...run.compounds].map((r) => `${JSON.stringify(r)}\n`).join(''));
  return dir;
}

test('a trial is kept without its full events, with its final cause and index diff', () => {
  const full = {
    ...trial('vectors-overwritten', 'garbage', 'healed', 30),
    firstAnomaly: { probe_id: 'loop-1' },
    finalReport: {
      root_cause: 'vector_index_corruption',
      affected_component: 'vector_index',
      confidence: 0.9,
      report_revision: 2,
      evidence: ['big'],
      index_diff: { missing: 3 },
    },
  } as unknown as TrialResult;
  const row = trialRowOf(full, { calls: 40, results: 4 });
  assert.equal('firstAnomaly' in row, false);
  assert.deepEqual(row.finalReport, {
    root_cause: 'vector_index_corruption',
    affected_component: 'vector_index',
    confidence: 0.9,
    report_revision: 2,
    index_diff: { missing: 3 },
  });
  assert.deepEqual(row.rag_calls, { calls: 40, results: 4 });
});

test('runs read back from their directories; a broken record is refused naming the file and line', () => {
  const compound = {
    compound: [{ kind: 'vectors-overwritten' }, { kind: 'attribution-swap' }],
    seed: 'bench-compound-0',
    faults: [],
    injectedAt: 1,
    incidents: [],
    namedCauses: [],
    repairedBy: [],
    rightRepairsUndone: [],
    partials: [],
    escalated: false,
    outcome: 'timeout',
    actions: [],
    endedAt: 2,
  } as unknown as HealingCompoundRow;
  const dir = keep({
    header: header('2026-12-07T14-00-00'),
    trials: [trialRowOf(trial('vectors-overwritten', 'garbage', 'healed', 30), { calls: 1, results: 1 })],
    compounds: [compound],
  });
  const run = readHealingRun(dir);
  assert.equal(run.trials.length, 1);
  assert.equal(run.compounds.length, 1);
  assert.equal(run.header.rag, 'langchain');
  assert.equal(run.notes, undefined);
  // Notes written by hand beside the records travel to the page, tagged with their run.
  writeFileSync(join(dir, 'notes.txt'), 'the clean phase had one false anomaly\n\nsecond note\n');
  const noted = readHealingRun(dir);
  assert.deepEqual(noted.notes, ['the clean phase had one false anomaly', 'second note']);
  assert.match(
    renderHealingResults([noted]),
    /## Notes[^\n]*\n\n- 2026-12-07T14-00-00: the clean phase had one false anomaly\n- 2026-12-07T14-00-00: second note\n/,
  );
  assert.doesNotMatch(renderHealingResults([run]), /## Notes/);

  const broken = join(root, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'run.json'), JSON.stringify(header('2026-12-07T15-00-00')));
  assert.throws(() => readHealingRun(broken), /broken\/trials\.jsonl: missing/);
  writeFileSync(
    join(broken, 'trials.jsonl'),
    `${JSON.stringify(trialRowOf(trial('x', 'y', 'healed', 1), { calls: 1, results: 1 }))}\n{"plan": {}}\n`,
  );
  assert.throws(() => readHealingRun(broken), /trials\.jsonl:2: no plan\.kind/);
  writeFileSync(join(broken, 'run.json'), JSON.stringify({ ...header('2026-12-07T15-00-00'), version: 99 }));
  assert.throws(() => readHealingRun(broken), /run\.json: version 99/);
});

test('a trial counts in its kind-and-mode row when one is pinned, else in its kind row', () => {
  const runs = [
    { header: header('2026-12-07T14-00-00', { kinds: ['vectors-overwritten:garbage'] }), trials: [], compounds: [] },
    { header: header('2026-12-08T14-00-00', { kinds: ['attribution-swap', 'vectors-overwritten'] }), trials: [], compounds: [] },
  ];
  const specs = matrixSpecs(runs);
  assert.deepEqual(
    specs.map((s) => s.label),
    // Cycle order (HEALING_KIND_ORDER: the operator's Qdrant writes after the named kinds), a kind's unpinned row first.
    ['attribution-swap', 'vectors-overwritten', 'vectors-overwritten (garbage)'],
  );
  assert.equal(specOf(specs, { plan: { kind: 'vectors-overwritten', mode: 'garbage' } })?.label, 'vectors-overwritten (garbage)');
  assert.equal(specOf(specs, { plan: { kind: 'vectors-overwritten', mode: 'deleted' } })?.label, 'vectors-overwritten');
  assert.equal(specOf(specs, { plan: { kind: 'prompt-regressed', mode: 'x' } }), undefined);
});

test('several runs render one matrix: clean phases added, trials of a kind counted over the runs, each run listed', () => {
  const row = (t: TrialResult): HealingTrialRow => trialRowOf(t, { calls: 100, results: 10 });
  const a: HealingRun = {
    header: header('2026-12-07T14-00-00'),
    trials: [row(trial('vectors-overwritten', 'garbage', 'healed', 30)), row(trial('vectors-overwritten', 'garbage', 'escalated', 50))],
    compounds: [],
  };
  const b: HealingRun = {
    header: header('2026-12-08T09-30-00', { commit: 'def5678', finished: false, trialsPerKind: 3 }),
    trials: [row(trial('vectors-overwritten', 'garbage', 'healed', 40))],
    compounds: [],
  };
  const page = renderHealingResults([a, b], { mergeCommand: 'bench/healing/merge.ts --runs-dir bench/healing/runs --rag langchain' });
  assert.match(page, /Merged by `bench\/healing\/merge\.ts --runs-dir bench\/healing\/runs --rag langchain` from 2 kept run\(s\)/);
  assert.match(page, /at abc1234/);
  assert.match(page, /at def5678/);
  assert.match(page, /\*\*Partial: 1 of 3 trials done when this was written \(stopped before its end\)\.\*\*/);
  // 10 + 10 clean rounds, 1 + 1 false anomalies.
  assert.match(page, /20 rounds, 200 probe results: \*\*2 anomalies, 0 reports, 0 repair actions\*\*/);
  // One row, three trials: detection 30/50/40 s -> mean 40.0; healed 2 of 3.
  assert.match(page, /\| vectors-overwritten \(garbage\) \| 3 \| 40\.0 ± 8\.2 s \|[^\n]*\| 67% \(2\/3\) \|/);
  // Every trial tagged with its run.
  const everyTrial = page.slice(page.indexOf('## Every trial'));
  assert.equal((everyTrial.match(/\| 12-07T14-00 vectors-overwritten \| garbage \|/g) ?? []).length, 2);
  assert.equal((everyTrial.match(/\| 12-08T09-30 vectors-overwritten \| garbage \|/g) ?? []).length, 1);
  assert.throws(() => renderHealingResults([a, { ...b, header: { ...b.header, rag: 'reference' } }]), /different RAGs/);
});

test("one run's own page names its command and raw records, untagged", () => {
  const run: HealingRun = {
    header: header('2026-12-07T14-00-00', { rag: 'reference', ragText: 'reference RAG over 25 Debian packages' }),
    trials: [trialRowOf(trial('vectors-overwritten', 'garbage', 'healed', 1.5), { calls: 2, results: 1 })],
    compounds: [],
  };
  const page = renderHealingResults([run], { rawRecords: '.runs/bench-healing-2026-12-07T14-00-00/trials.jsonl' });
  assert.match(page, /^# bench\/healing results\n/);
  assert.match(
    page,
    /`npm run stack -- up && npx tsx bench\/healing\/run\.ts --rag langchain --trials 1 --kinds vectors-overwritten:garbage` \(the command as run/,
  );
  assert.match(page, /raw per-trial records in `\.runs\/bench-healing-2026-12-07T14-00-00\/trials\.jsonl`/);
  assert.match(page, /\| vectors-overwritten \| garbage \| 0\.5 \| bench-0 \| 1 \| 1\.5 \|/);
  assert.doesNotMatch(page, /Partial/);
  assert.match(page, /\| \(none run\) \|/);
});
