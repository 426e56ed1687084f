/**
 * tools/ops/provision-bus.ts (what the Terraform bus-topics Job runs) against the real Kafka and
 * schema registry of the stack: the development profile creates the four topics with their
 * configured partitions and registers the schemas; the production profile refuses the stack's
 * plaintext, unauthenticated broker (exit 78 naming KAFKA_SSL) before creating anything.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createKafka, busDefaults, plannedTopics } from '@rag-immune/bus';
import { repoRoot } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';

const run = promisify(execFile);
const prefix = `opsprov-${randomUUID().slice(0, 8)}-`;
const kafka = createKafka({ clientId: 'ops-provision-test', brokers: [endpoints.kafkaBrokers[0] ?? ''] });

function provision(extra: Record<string, string>) {
  return run('node', ['--import', 'tsx', 'tools/ops/provision-bus.ts'], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
      ...extra,
    },
    timeout: 120_000,
  });
}

after(async () => {
  const admin = kafka.admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length > 0) await admin.deleteTopics({ topics: mine });
  await admin.disconnect();
});

test('the development profile creates every topic with its partitions and registers the schemas', async () => {
  const { stdout } = await provision({ BUS_PROFILE: 'development', BUS_TOPIC_PREFIX: `${prefix}dev-`, BUS_PROBES_PARTITIONS: '5' });
  const summary = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; topics?: { topic: string; partitions: number }[] })
    .find((line) => line.msg === 'bus provisioned');
  assert.ok(summary?.topics, stdout);
  const want = plannedTopics({
    ...busDefaults('development'),
    clientId: 'x',
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    topicPrefix: `${prefix}dev-`,
  });
  assert.deepEqual(summary.topics.map((t) => t.topic).sort(), want.map((t) => t.topic).sort());

  const admin = kafka.admin();
  await admin.connect();
  try {
    const meta = await admin.fetchTopicMetadata({ topics: want.map((t) => t.topic) });
    const partitions = Object.fromEntries(meta.topics.map((t) => [t.name, t.partitions.length]));
    assert.equal(partitions[`${prefix}dev-rag-sentinel-probes`], 5);
    assert.equal(partitions[`${prefix}dev-rag-identifiers-reports`], busDefaults('development').topics.reports.partitions);
  } finally {
    await admin.disconnect();
  }
});

test('the production profile refuses the plaintext, unauthenticated stack before creating anything', async () => {
  // Production insists on TLS and SASL (or mTLS) first, so the single-broker stack's refusal of
  // replication 3 is no longer reached here; packages/bus unit tests cover the replication defaults.
  await assert.rejects(
    provision({ BUS_PROFILE: 'production', BUS_TOPIC_PREFIX: `${prefix}prod-` }),
    (error: { code?: number; stdout?: string }) => {
      assert.equal(error.code, 78);
      assert.match(error.stdout ?? '', /KAFKA_SSL/);
      return true;
    },
  );
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.deepEqual(
      (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}prod-`)),
      [],
    );
  } finally {
    await admin.disconnect();
  }
});

test('a bad setting stops it with the configuration exit code, naming the variable', async () => {
  await assert.rejects(
    provision({ BUS_PROFILE: 'staging', BUS_TOPIC_PREFIX: `${prefix}bad-` }),
    (error: { code?: number; stdout?: string }) => {
      assert.equal(error.code, 78);
      assert.match(error.stdout ?? '', /BUS_PROFILE/);
      return true;
    },
  );
});
