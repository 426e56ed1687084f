import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { loadTopicSchema } from '@rag-immune/contracts';
import { stackBusConfig } from '@rag-immune/test-kit/bus';

const registry = new SchemaRegistry({ host: stackBusConfig().schemaRegistryUrl });

test('the real registry refuses a BACKWARD-incompatible change of ProbeResult and accepts a compatible one', async () => {
  // A private subject holding the real schema, so the live topics' subjects stay untouched.
  const subject = `compat-check-${randomUUID()}-value`;
  const current = loadTopicSchema('probes');
  const first = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(current) }, { subject });

  const incompatible = { ...current, fields: [...current.fields, { name: 'tenant', type: 'string' }] };
  await assert.rejects(registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(incompatible) }, { subject }), (error: Error) =>
    /compatib|409/i.test(`${error.name} ${error.message}`),
  );

  const compatible = { ...current, fields: [...current.fields, { name: 'tenant', type: ['null', 'string'], default: null }] };
  const second = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(compatible) }, { subject });
  assert.notEqual(second.id, first.id);
});

test('the registry global compatibility level is BACKWARD', async () => {
  const response = await fetch(`${stackBusConfig().schemaRegistryUrl}/config`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { compatibilityLevel?: string; compatibility?: string };
  assert.equal(body.compatibilityLevel ?? body.compatibility, 'BACKWARD');
});
