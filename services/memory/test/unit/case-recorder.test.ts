/**
 * The recorder's ordering guarantee with concurrent writers, on a store double that reproduces
 * Elasticsearch's optimistic concurrency and lets the test decide when each Qdrant upsert lands
 * (the real stores are exercised in test/integration/memory-worker.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { CaseRecorder } from '../../src/cases/case-recorder.ts';
import { CaseVersionConflictError, type CaseStore, type StoredCase } from '../../src/cases/case-store.ts';
import { caseIdOf, type HealingCase } from '../../src/cases/healing-case.ts';
import { action, report } from '../support/events.ts';

class VersionedStoreDouble {
  doc: StoredCase | null = null;
  point: HealingCase | null = null;
  /** Upserts wait here until the test releases them, in the order it chooses. */
  readonly pendingUpserts: { healingCase: HealingCase; land: () => void }[] = [];
  holdUpserts = true;

  async get(): Promise<StoredCase | null> {
    return this.doc === null ? null : structuredClone(this.doc);
  }

  async write(healingCase: HealingCase, expected: StoredCase | null): Promise<StoredCase> {
    const current = this.doc;
    if ((expected === null) !== (current === null) || (expected && current && expected.seqNo !== current.seqNo)) {
      throw new CaseVersionConflictError(healingCase.case_id);
    }
    this.doc = { healingCase: structuredClone(healingCase), seqNo: (current?.seqNo ?? -1) + 1, primaryTerm: 1 };
    return structuredClone(this.doc);
  }

  async upsertVector(healingCase: HealingCase): Promise<void> {
    if (!this.holdUpserts) {
      this.point = structuredClone(healingCase);
      return;
    }
    await new Promise<void>((resolve) =>
      this.pendingUpserts.push({
        healingCase: structuredClone(healingCase),
        land: () => {
          this.point = structuredClone(healingCase);
          resolve();
        },
      }),
    );
  }
}

const embedder = { embed: async (texts: readonly string[]) => texts.map(() => new Float32Array([1, 0, 0])) };
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(condition(), 'condition never met');
};

test('an upsert of an older version landing last is repaired: Qdrant ends on the newest case', async () => {
  const store = new VersionedStoreDouble();
  const recorder = new CaseRecorder(store as unknown as CaseStore, embedder, 'default', pino({ level: 'silent' }));
  const t = Date.now() - 60_000;

  // The action opens the case (no signature yet); its upsert is held back.
  const first = recorder.record({ kind: 'action', event: action('inc-race', { at: t + 30_000 }) });
  await until(() => store.pendingUpserts.length === 1);
  // The report is written next and its upsert lands first.
  const second = recorder.record({ kind: 'report', event: report('inc-race', { at: t }) });
  await until(() => store.pendingUpserts.length === 2);
  store.holdUpserts = false;
  store.pendingUpserts[1]?.land();
  await second;
  assert.equal(store.point?.signature?.root_cause, 'reranker_drift');
  // Now the stale upsert (the case before its report) lands and would win without the re-read.
  store.pendingUpserts[0]?.land();
  await first;

  assert.equal(store.doc?.healingCase.signature?.root_cause, 'reranker_drift');
  assert.deepEqual(store.point, store.doc?.healingCase, 'the Qdrant point holds the newest stored version');
  assert.equal(store.point?.outcome, 'recovered');
});

test('an incident with several causes is one case per cause: each report finding and each repair for it in its own case', async () => {
  const cases = new Map<string, StoredCase>();
  const store = {
    get: async (id: string) => structuredClone(cases.get(id) ?? null),
    write: async (healingCase: HealingCase, expected: StoredCase | null) => {
      const written = { healingCase: structuredClone(healingCase), seqNo: (expected?.seqNo ?? -1) + 1, primaryTerm: 1 };
      cases.set(healingCase.case_id, written);
      return structuredClone(written);
    },
    upsertVector: async () => undefined,
  };
  const recorder = new CaseRecorder(store as unknown as CaseStore, embedder, 'default', pino({ level: 'silent' }));
  const t = Date.now() - 60_000;
  const finding = (root_cause: 'reranker_drift' | 'vector_index_corruption', affected_component: 'reranker' | 'vector_index') => ({
    root_cause,
    affected_component,
    confidence: 0.9,
    claims: [],
    affected_probes: [],
    affected_knowledge_ids: root_cause === 'vector_index_corruption' ? ['doc-1'] : [],
    recommended_intents: [],
  });
  await recorder.record({
    kind: 'report',
    event: report('inc-two', {
      at: t,
      findings: [finding('reranker_drift', 'reranker'), finding('vector_index_corruption', 'vector_index')],
    }),
  });
  await recorder.record({
    kind: 'action',
    event: action('inc-two', { at: t + 10_000, intent: 'rollback_reranker', arguments: { finding: 'reranker_drift' } }),
  });
  const drift = cases.get(caseIdOf('default', 'inc-two', 'reranker_drift'))!.healingCase;
  const damage = cases.get(caseIdOf('default', 'inc-two', 'vector_index_corruption'))!.healingCase;
  assert.equal(cases.size, 2, 'no incident-wide case beside the two');
  assert.deepEqual([drift.signature?.root_cause, drift.outcome, drift.recovered_by], ['reranker_drift', 'recovered', 'rollback_reranker']);
  assert.deepEqual(
    [damage.signature?.root_cause, damage.signature?.affected_knowledge_ids, damage.outcome],
    ['vector_index_corruption', ['doc-1'], 'open'],
  );
});
