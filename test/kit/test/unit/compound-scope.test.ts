/**
 * A compound trial's two faults on different documents, whichever way the RAG takes them: the pairs
 * `--compound` names, and a scoped fault's body moved off the knowledge the other fault hit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disjointScope, injectionOrder, parseCompoundPairs, redeploys } from '../../src/loop/compound-trial.ts';
import { injectionBody } from '../../src/loop/faults.ts';
import type { LoopProbes } from '../../src/loop/probes.ts';

const SOURCES = ['changelog/curl', 'apt/curl', 'changelog/bash', 'apt/bash', 'changelog/zlib', 'apt/zlib', 'changelog/tar', 'apt/tar'];
const probes = {
  probes: SOURCES.map((source, i) => ({ id: `p${i}`, expected_sources: [source] })),
  changedSinceStale: new Set<string>(),
  tokenizerTouched: new Set<string>(),
} as unknown as LoopProbes;
const idsOf = (body: Record<string, unknown>) => (body.scope as { knowledge_ids: string[] }).knowledge_ids;

test('parseCompoundPairs: pairs of known kinds, a mode pinned after a colon', () => {
  assert.deepEqual(parseCompoundPairs('vectors-overwritten:deleted+attribution-swap,unpublished-knowledge+prompt-regressed'), [
    [{ kind: 'vectors-overwritten', mode: 'deleted' }, { kind: 'attribution-swap' }],
    [{ kind: 'unpublished-knowledge' }, { kind: 'prompt-regressed' }],
  ]);
  assert.deepEqual(parseCompoundPairs(''), []);
  assert.throws(() => parseCompoundPairs('vectors-overwritten'), /two kinds joined by \+/);
  assert.throws(() => parseCompoundPairs('vectors-overwritten+attribution-swap+unpublished-knowledge'), /two kinds/);
  assert.throws(() => parseCompoundPairs('vectors-overwritten:zero+attribution-swap'), /has modes garbage, deleted, not zero/);
  assert.throws(() => parseCompoundPairs('no-such-fault+attribution-swap'), /unknown fault kind no-such-fault/);
});

test('disjointScope: nothing taken leaves the body as the plan made it', () => {
  const body = injectionBody({ kind: 'vectors-overwritten', mode: 'garbage', fraction: 0.25, seed: 's' }, probes);
  assert.deepEqual(disjointScope('vectors-overwritten', body, probes, new Set()), body);
});

test('disjointScope: a scoped fault keeps its size on documents the other fault did not hit', () => {
  for (const seed of ['a', 'b', 'c', 'd']) {
    const first = injectionBody({ kind: 'unpublished-knowledge', fraction: 0.5, seed }, probes);
    const taken = new Set(idsOf(first));
    const second = injectionBody({ kind: 'vectors-overwritten', fraction: 0.25, seed }, probes);
    const moved = idsOf(disjointScope('vectors-overwritten', second, probes, taken));
    assert.equal(moved.length, idsOf(second).length, seed);
    assert.ok(
      moved.every((id) => !taken.has(id)),
      `${seed}: ${moved.join(',')} overlaps ${[...taken].join(',')}`,
    );
    // The ids the plan chose that were free stay chosen.
    for (const id of idsOf(second).filter((id) => !taken.has(id))) assert.ok(moved.includes(id), `${seed}: lost ${id}`);
  }
});

test('disjointScope: an attribution swap after another fault still swaps a changelog with an apt document of another package', () => {
  const swap = injectionBody({ kind: 'attribution-swap', seed: 's' }, probes);
  const taken = new Set(idsOf(swap));
  const moved = idsOf(disjointScope('attribution-swap', swap, probes, taken));
  assert.equal(moved.length, 2);
  assert.ok(moved.every((id) => !taken.has(id)));
  const [a, b] = moved as [string, string];
  assert.ok(a.startsWith('changelog/') && b.startsWith('apt/'), moved.join(','));
  assert.notEqual(a.slice(a.indexOf('/') + 1), b.slice(b.indexOf('/') + 1));
});

test('disjointScope: a global fault (a deploy) is left as it is; no free document is an error', () => {
  const deploy = injectionBody({ kind: 'prompt-regressed', mode: 'instruct-v2' }, probes);
  assert.equal(disjointScope('prompt-regressed', deploy, probes, new Set(SOURCES)), deploy);
  const body = injectionBody({ kind: 'vectors-overwritten', fraction: 0.25, seed: 's' }, probes);
  assert.throws(() => disjointScope('vectors-overwritten', body, probes, new Set(SOURCES)), /no document left/);
});

test('injectionOrder: a redeploy goes first (its start re-syncs the index from the feeds), otherwise plan order', () => {
  assert.deepEqual(injectionOrder(['vectors-overwritten', 'prompt-regressed'], false), [1, 0]);
  assert.deepEqual(injectionOrder(['unpublished-knowledge', 'vectors-overwritten'], false), [0, 1]);
  // A stale feed is a deploy only without a fault API.
  assert.deepEqual(injectionOrder(['vectors-overwritten', 'knowledge-source-failure'], false), [1, 0]);
  assert.deepEqual(injectionOrder(['reranker-drift', 'knowledge-source-failure'], true), [0, 1]);
  assert.equal(redeploys('prompt-regressed', true), true);
  assert.equal(redeploys('attribution-swap', false), false);
});
