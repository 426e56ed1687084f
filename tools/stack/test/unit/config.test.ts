import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadStackConfig, stackEndpoints, stackEnvVarName, StackConfigError } from '../../src/index.ts';

function withRepo(config: unknown | undefined, run: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'stack-config-'));
  try {
    if (config !== undefined) writeFileSync(join(root, 'stack.config.json'), JSON.stringify(config));
    run(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('defaults give loopback endpoints with the ccompat base path', () => {
  withRepo(undefined, (root) => {
    const endpoints = stackEndpoints(loadStackConfig(root, {}));
    assert.deepEqual(endpoints.kafkaBrokers, ['127.0.0.1:19092']);
    assert.equal(endpoints.schemaRegistryUrl, 'http://127.0.0.1:18081/apis/ccompat/v7');
    assert.equal(endpoints.prometheusUrl, 'http://127.0.0.1:19090');
  });
});

test('env names follow STACK_<SECTION>_<KEY>', () => {
  assert.equal(stackEnvVarName(['kafka', 'port']), 'STACK_KAFKA_PORT');
  assert.equal(stackEnvVarName(['schemaRegistry', 'heapMb']), 'STACK_SCHEMA_REGISTRY_HEAP_MB');
});

test('stack.config.json overrides defaults and env overrides the file', () => {
  withRepo({ kafka: { port: 29092, heapMb: 512 } }, (root) => {
    const config = loadStackConfig(root, { STACK_KAFKA_PORT: '39092', STACK_PROMETHEUS_SCRAPE_TARGETS: 'a:1, b:2' });
    assert.equal(config.kafka.port, 39092);
    assert.equal(config.kafka.heapMb, 512);
    assert.deepEqual(config.prometheus.scrapeTargets, ['a:1', 'b:2']);
  });
});

test('a bad env value is refused naming the key and the variable', () => {
  withRepo(undefined, (root) => {
    assert.throws(
      () => loadStackConfig(root, { STACK_KAFKA_PORT: 'abc' }),
      (error: Error) => error instanceof StackConfigError && /kafka\.port/.test(error.message) && /STACK_KAFKA_PORT/.test(error.message),
    );
    assert.throws(() => loadStackConfig(root, { STACK_SCHEMA_REGISTRY_PORT: '80' }), /schemaRegistry\.port/);
  });
});

test('a bad or unknown key in stack.config.json is refused naming it', () => {
  withRepo({ schemaRegistry: { heapMb: 'lots' } }, (root) => {
    assert.throws(() => loadStackConfig(root, {}), /schemaRegistry\.heapMb.*stack\.config\.json/);
  });
  withRepo({ kafka: { prot: 1 } }, (root) => {
    assert.throws(() => loadStackConfig(root, {}), /kafka\.prot/);
  });
});
