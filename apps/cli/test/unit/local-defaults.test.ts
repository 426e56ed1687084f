/**
 * The CLI no longer loads the dev stack's code (it is an app, apps/cli), so its fallback endpoints
 * are written down in apps/cli/src/connection.ts: they must stay the stack's default ports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StackConfigSchema, stackEndpoints } from '@rag-immune/stack';
import { LOCAL_STACK, cliBusConfig } from '../../src/connection.ts';

test("the CLI's local fallback is the stack's default Kafka and registry", () => {
  const defaults = stackEndpoints(StackConfigSchema.parse({}), process.cwd(), {});
  assert.deepEqual([...LOCAL_STACK.kafkaBrokers], defaults.kafkaBrokers);
  assert.equal(LOCAL_STACK.schemaRegistryUrl, defaults.schemaRegistryUrl);
});

test('the variables win over the fallback', () => {
  const config = cliBusConfig({ KAFKA_BROKERS: 'kafka.internal:9092', SCHEMA_REGISTRY_URL: 'http://registry.internal:8081' });
  assert.deepEqual(config.brokers, ['kafka.internal:9092']);
  assert.equal(config.schemaRegistryUrl, 'http://registry.internal:8081');
  assert.deepEqual(cliBusConfig({}).brokers, [...LOCAL_STACK.kafkaBrokers]);
});
