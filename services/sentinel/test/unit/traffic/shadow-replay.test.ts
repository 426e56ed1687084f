import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe } from '@rag-immune/probing';
import { ShadowReplay, replayProbeId } from '../../../src/traffic/shadow-replay.ts';

/** A runner answering anomaly for the queries in `bad`, or all (the real ProbeRunner is exercised in the integration test). */
function runner(bad: Set<string> | 'all') {
  const ran: GoldenProbe[] = [];
  return {
    ran,
    run(probe: GoldenProbe): Promise<ProbeResult> {
      ran.push(probe);
      const result = exampleProbeResult(probe.id);
      const anomaly = bad === 'all' || bad.has(probe.query);
      return Promise.resolve({ ...result, query: probe.query, anomaly, anomaly_signals: anomaly ? ['answer_disagreement'] : [] });
    },
  };
}

const caps = { perSegment: 3, perIncident: 5, incidentWindowMs: 3_600_000, perHour: 100 };

test('a confirmed segment publishes its anomalous replays with origin traffic and the segment', async () => {
  const published: ProbeResult[] = [];
  const fake = runner(new Set(['q1', 'q2']));
  const replay = new ShadowReplay(fake, (r) => (published.push(r), Promise.resolve()), caps, 0.5);
  const outcome = await replay.confirm('pkg-zlib', ['q1', 'q2', 'q3', 'q1']);
  // 2 of the 3 distinct queries are the bar: reached after q1 and q2, q3 is never asked.
  assert.equal(outcome.replayed, 2);
  assert.deepEqual(
    fake.ran.map((p) => p.query),
    ['q1', 'q2'],
  );
  assert.equal(outcome.confirmed, true);
  assert.deepEqual(
    published.map((r) => [r.probe_id, r.origin, r.segment, r.query]),
    [
      [replayProbeId('pkg-zlib', 'q1'), 'traffic', 'pkg-zlib', 'q1'],
      [replayProbeId('pkg-zlib', 'q2'), 'traffic', 'pkg-zlib', 'q2'],
    ],
  );
  assert.match(published[0]!.probe_id, /^[a-z0-9][a-z0-9._-]{2,127}$/);
  assert.deepEqual(fake.ran[0]!.expected_sources, ['pkg-zlib']);
});

test('a segment the replay does not confirm publishes nothing', async () => {
  const published: ProbeResult[] = [];
  const replay = new ShadowReplay(runner(new Set(['q1'])), (r) => (published.push(r), Promise.resolve()), caps, 0.5);
  const outcome = await replay.confirm('pkg-zlib', ['q1', 'q2', 'q3']);
  assert.equal(outcome.confirmed, false);
  assert.equal(outcome.anomalous, 1);
  assert.equal(published.length, 0);
});

test('the replay stops once the bar is out of reach: the verdict all queries would give, fewer calls', async () => {
  const fake = runner(new Set(['q3']));
  const replay = new ShadowReplay(fake, () => Promise.resolve(), caps, 0.5);
  const outcome = await replay.confirm('pkg-zlib', ['q1', 'q2', 'q3']);
  assert.deepEqual(
    { replayed: outcome.replayed, anomalous: outcome.anomalous, confirmed: outcome.confirmed },
    { replayed: 2, anomalous: 0, confirmed: false },
  );
  // At share 1 every chosen query must be anomalous: the first clean one ends it.
  const strict = new ShadowReplay(runner(new Set(['q1'])), () => Promise.resolve(), caps, 1);
  assert.equal((await strict.confirm('pkg-zlib', ['q1', 'q2', 'q3'])).replayed, 2);
});

test('replays stop at the per-incident and per-hour caps', async () => {
  let now = 0;
  const fake = runner('all');
  const replay = new ShadowReplay(
    fake,
    () => Promise.resolve(),
    { ...caps, perHour: 7 },
    1, // every chosen query must be anomalous: all are asked
    () => now,
  );
  assert.equal((await replay.confirm('a', ['1', '2', '3'])).replayed, 3);
  const second = await replay.confirm('a', ['4', '5', '6']);
  assert.equal(second.replayed, 2);
  assert.equal(second.capped, 'per incident');
  const other = await replay.confirm('b', ['1', '2', '3']);
  assert.equal(other.replayed, 2);
  assert.equal(other.capped, 'per hour');
  now += 3_600_001;
  assert.equal((await replay.confirm('a', ['7', '8', '9'])).replayed, 3);
  assert.equal(fake.ran.length, 10);
});

test('an ended incident gives its segment a new per-incident budget; the hourly cap still holds', async () => {
  const fake = runner('all');
  const replay = new ShadowReplay(
    fake,
    () => Promise.resolve(),
    { ...caps, perHour: 9 },
    1, // every chosen query must be anomalous: all are asked
    () => 0,
  );
  assert.equal((await replay.confirm('a', ['1', '2', '3'])).replayed, 3);
  assert.equal((await replay.confirm('a', ['4', '5', '6'])).replayed, 2, 'the incident budget of 5 is spent');
  assert.equal((await replay.confirm('a', ['7'])).replayed, 0);
  replay.incidentEnded('a');
  assert.equal((await replay.confirm('a', ['7', '8', '9'])).replayed, 3, 'a new incident on the same knowledge is replayed');
  const capped = await replay.confirm('a', ['10', '11', '12']);
  assert.equal(capped.replayed, 1);
  assert.equal(capped.capped, 'per hour');
});
