import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import {
  assembleSchema,
  avroDir,
  sharedTypes,
  Topics,
  topicIds,
  loadTopicSchema,
  subjectOf,
  exampleProbeResult,
  exampleRootCauseReport,
  exampleRepairAction,
} from '../../src/index.ts';

const examples = {
  probes: exampleProbeResult,
  reports: exampleRootCauseReport,
  actions: exampleRepairAction,
} as const;

test('every topic schema parses and names the record the topic promises', () => {
  for (const topic of topicIds) {
    const type = avro.Type.forSchema(loadTopicSchema(topic) as avro.Schema);
    assert.equal(type.name, Topics[topic].recordName);
    assert.equal(subjectOf(topic), `${Topics[topic].name}-value`);
  }
});

test('every event carries event_id, a correlation or incident id, occurred_at and producer', () => {
  for (const topic of topicIds) {
    const fields = (loadTopicSchema(topic).fields as { name: string; type: unknown }[]).map((f) => f.name);
    for (const required of ['event_id', 'occurred_at', 'producer']) {
      assert.ok(fields.includes(required), `${topic} lacks ${required}`);
    }
    assert.ok(fields.includes('incident_id') || fields.includes('correlation_id'), `${topic} has no correlation id`);
    const occurredAt = (loadTopicSchema(topic).fields as { name: string; type: unknown }[]).find((f) => f.name === 'occurred_at');
    assert.deepEqual(occurredAt?.type, { type: 'long', logicalType: 'timestamp-millis' });
  }
});

test('the example events round-trip through their Avro type unchanged', () => {
  for (const topic of topicIds) {
    const type = avro.Type.forSchema(loadTopicSchema(topic) as avro.Schema);
    const event = examples[topic]();
    const paths: string[] = [];
    const valid = type.isValid(event, { errorHook: (path) => paths.push(path.join('.')) });
    assert.ok(valid, `${topic} example invalid at ${paths.join(', ')}`);
    assert.deepEqual(JSON.parse(JSON.stringify(type.fromBuffer(type.toBuffer(event)))), JSON.parse(JSON.stringify(event)));
  }
});

test('named types shared between schemas are defined identically everywhere', () => {
  const definitions = new Map<string, string>();
  const visit = (node: unknown, namespace: string | undefined): void => {
    if (Array.isArray(node)) {
      node.forEach((child) => visit(child, namespace));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const ns = typeof record.namespace === 'string' ? record.namespace : namespace;
    if (typeof record.name === 'string' && ['record', 'enum', 'fixed'].includes(String(record.type))) {
      const fullName = record.name.includes('.') ? record.name : `${ns}.${record.name}`;
      const text = JSON.stringify(record);
      const earlier = definitions.get(fullName);
      if (earlier !== undefined) assert.equal(text, earlier, `${fullName} differs between schemas`);
      definitions.set(fullName, text);
    }
    for (const value of Object.values(record)) visit(value, ns);
  };
  for (const topic of topicIds) visit(loadTopicSchema(topic), undefined);
  assert.ok(definitions.has('io.ragimmune.common.EventProducer'));
  assert.ok(definitions.has('io.ragimmune.common.RepairIntent'));
});

test('a RootCauseReport may abstain with unknown, and must always name a root cause', () => {
  const type = avro.Type.forSchema(loadTopicSchema('reports') as avro.Schema) as avro.types.RecordType;
  const field = type.fields.find((f) => f.name === 'root_cause');
  const rootCause = field?.type as avro.types.EnumType;
  assert.ok(rootCause.symbols.includes('unknown'));
  assert.equal(field?.defaultValue(), undefined);
});

/**
 * The Parsing Canonical Form fingerprints of the schemas as registered before the shared types
 * moved to avro/common/: assembling the topic schemas from their parts must give the same Avro, so
 * no subject gets a new version (BACKWARD holds trivially). A deliberate contract change updates these.
 */
const REGISTERED_FINGERPRINTS: Record<string, string> = {
  // 2026-12-02: ProbeResult's per-side traceparent and RootCauseReport's trace_incomplete (issue 26).
  // 2026-12-04: ProbeResult's feed check, unpublished knowledge, attribution and their two signals (issue 30).
  // 2026-12-04: RootCauseReport's findings and unexplained_probes, RecoveryVerification's per-probe outcome (issue 30, several causes).
  // 2026-12-04: ProbeResult's sampled mode, comparison.samples and the two sample test p-values (issue 27).
  // 2026-12-06: ProbeResult's comparison.pooled_test, the pooled test's e-values and statistics (issue 39).
  // 2026-12-06: ProbeResult's origin (golden | traffic) and segment, for traffic replays (issue 38).
  // 2026-12-06: ProbeObservation's answer_hash, which the identifier checks an intake trace against (issue 40 item 3),
  // RootCauseReport's ledger_head, the evidence ledger head anchored in Kafka (issue 40 item 10), and its index_diff
  // with the open question index_change_unexplained (issue 39, what changed in the index).
  // 2026-12-06: ProbeResult's comparison.pooled_test.knowledge_pools, evidence pooled across the probes on one knowledge id (issue 39).
  // 2026-12-06: FeedCheckStatus's baseline_not_refreshed, appended (issue 42: a product without a freshness lookup).
  // 2026-12-06: ProbeResult's comparison.{online,baseline}_{fcs,ic}_median, the sampled medians a side (issue 39: verification reports them).
  probes: 'fd7a664384210f842b7138c5b9c82bf113013c0c32c80ef02c7ac3516c91649c',
  reports: '6c45a9775665b8377c007e0915e160c77a761da5cbaeeb99806cba35aa9aa340',
  actions: '4ed35718d9cc30bae76bfad873703a8ef3c61c3fb6af8c9a5e40598ea8da15ba',
};

test('assembled from avro/common/, each topic schema is the Avro registered before (same fingerprint)', () => {
  for (const topic of topicIds)
    assert.equal(
      avro.Type.forSchema(loadTopicSchema(topic) as avro.Schema)
        .fingerprint('sha256')
        .toString('hex'),
      REGISTERED_FINGERPRINTS[topic],
      topic,
    );
});

test('a shared type is written once, in avro/common/: a topic file names it and never copies it', () => {
  const files = readdirSync(avroDir).filter((f) => f.endsWith('.avsc'));
  for (const file of files) {
    const text = readFileSync(join(avroDir, file), 'utf8');
    for (const fullName of sharedTypes().keys()) {
      const name = fullName.split('.').at(-1)!;
      assert.doesNotMatch(text, new RegExp(`"name":\\s*"${name}"`), `${file} defines ${fullName} inline`);
    }
  }
  const copy = {
    type: 'record',
    name: 'X',
    fields: [{ name: 'p', type: { type: 'record', name: 'EventProducer', namespace: 'io.ragimmune.common', fields: [] } }],
  };
  assert.throws(() => assembleSchema(copy, sharedTypes()), /defined inline/);
});
