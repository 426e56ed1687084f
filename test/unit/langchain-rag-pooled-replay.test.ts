/**
 * bench/langchain-rag/pooled-replay.ts (issue 39): the detection delay replayed on a fault recording.
 * A tiny synthetic recording: a touched probe whose online FCS collapsed (detected, the delay in runs
 * and RAG calls consistent with the samples a side), a touched probe the fault left unchanged (not
 * detected), an untouched probe replayed apart; and the facts signal on answers that changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdaptiveSampling } from '@rag-immune/probing';
import { detectionDelay, groupByProbe, readRecording, replay, type RecordedResult } from '../../bench/langchain-rag/pooled-replay.ts';

const ANSWER = 'curl 8.5.0-2 is the latest version of curl, released on 2024-01-10.';

/** `n` results of one probe; the online FCS of result i is online(i), the baseline's 0.9 with a little spread. */
function probe(id: string, n: number, touched: boolean, online: (i: number) => number, onlineAnswer = () => ANSWER): RecordedResult[] {
  return Array.from({ length: n }, (_, i) => ({
    probe_id: id,
    kind: 'latest_version',
    knowledge_changed: false,
    online_answer: onlineAnswer(),
    baseline_answer: ANSWER,
    online_fcs: online(i),
    baseline_fcs: 0.9 - 0.01 * (i % 4),
    fault: 'vectors-overwritten:garbage',
    knowledge_id: `changelog/${id}`,
    touched,
  }));
}
// Interleaved as run.ts writes them (round robin over the probes).
function interleave(...probes: RecordedResult[][]): RecordedResult[] {
  return Array.from({ length: Math.max(...probes.map((p) => p.length)) }, (_, i) =>
    probes.flatMap((p) => (i < p.length ? [p[i]!] : [])),
  ).flat();
}
const collapsed = (i: number) => 0.01 + 0.001 * (i % 3);
const unchanged = (i: number) => 0.9 - 0.01 * ((i + 2) % 4);
const fixed = (k: number) => () => new AdaptiveSampling({ base: k, max: k });

test('a touched probe whose online FCS collapsed is detected by fcs_drop; calls are both sides of every sample taken', () => {
  const rows = interleave(probe('hit', 20, true, collapsed), probe('same', 20, true, unchanged), probe('other', 20, false, unchanged));
  for (const k of [2, 3, 5]) {
    const d = detectionDelay(rows, 0.05, fixed(k));
    assert.equal(d.touched, 2, 'the untouched probe is not counted for the delay');
    assert.equal(d.untouched, 1);
    assert.equal(d.untouchedAnomalous, 0);
    assert.equal(d.detected, 1, `k = ${k}: only the collapsed probe`);
    assert.deepEqual(d.bySignal, { fcs_drop: 1 });
    assert.deepEqual(d.resultsPerProbe, { min: 20, max: 20 });
    const [run] = d.runs;
    assert.ok(run !== undefined && run >= 1 && run * k <= 20, `k = ${k}: run ${run} within the recording`);
    assert.deepEqual(d.calls, [2 * k * run], 'k samples a side per run, both sides');
  }
});

test('a stricter level detects no sooner, and the detection agrees with the clean replay of the same windows', () => {
  const rows = interleave(probe('hit', 30, true, collapsed));
  const loose = detectionDelay(rows, 0.05, fixed(3));
  const strict = detectionDelay(rows, 0.005, fixed(3));
  assert.equal(strict.detected, 1);
  assert.ok(strict.runs[0]! >= loose.runs[0]!, `α 0.005 at run ${strict.runs[0]}, α 0.05 at ${loose.runs[0]}`);
  const direct = replay(groupByProbe(rows), 0.05, fixed(3)());
  assert.equal(direct.firstAnomaly.get('hit')?.run, loose.runs[0]);
});

test('a recording too short for one window of k detects nothing', () => {
  const d = detectionDelay(probe('hit', 4, true, collapsed), 0.05, fixed(5));
  assert.equal(d.detected, 0);
  assert.deepEqual(d.runs, []);
});

test('answers that change on the online side alone are found by the facts signal (answer_disagreement)', () => {
  const wrong = () => 'curl 7.1.0-9 is the latest version of curl, released on 2019-03-02.';
  const rows = probe('facts', 30, true, unchanged, wrong);
  const d = detectionDelay(rows, 0.05, fixed(5));
  assert.equal(d.detected, 1);
  assert.deepEqual(d.bySignal, { answer_disagreement: 1 });
});

test('readRecording reads a fault recording line by line, blank lines skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pooled-replay-'));
  try {
    const rows = probe('hit', 3, true, collapsed);
    writeFileSync(join(dir, 'fault.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n\n`);
    assert.deepEqual(readRecording(join(dir, 'fault.jsonl')), rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
