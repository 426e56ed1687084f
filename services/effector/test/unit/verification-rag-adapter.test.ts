/**
 * EFFECTOR_RAG_ADAPTER_FILE: a repair on a RAG without the contract's POST /query is verified by
 * probing it through its declarative adapter; a bad file or a missing secret refuses the start
 * naming the key; unset, verification keeps the contract clients.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdapterFileError, AdapterRagClient } from '@rag-immune/rag-adapter';
import { effectorConfigFromEnv } from '../../src/index.ts';
import { verificationRagPorts } from '../../src/verify/verification-rag-ports.ts';

const langserve = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/langserve-invoke.yaml', import.meta.url));
const flowise = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/flowise-prediction.yaml', import.meta.url));
const base = {
  EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1/rag',
  EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2/rag',
  EFFECTOR_QDRANT_COLLECTION: 'c',
  EFFECTOR_API_TOKEN: 'effector-token-0123456789',
};

test('unset: no adapter ports (verification uses the contract clients, as before)', () => {
  assert.equal(verificationRagPorts(effectorConfigFromEnv(base), {}), null);
});

test('set: both sides are adapter clients on their own URL, with the signals the adapter supports', async () => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.headers['user-agent']} ${req.url}`);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ output: 'answer', metadata: { run_id: 'r', feedback_tokens: [] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const config = effectorConfigFromEnv({
      ...base,
      EFFECTOR_ONLINE_RAG_URL: `${url}/online`,
      EFFECTOR_BASELINE_RAG_URL: `${url}/baseline`,
      EFFECTOR_RAG_ADAPTER_FILE: langserve,
    });
    const ports = verificationRagPorts(config, { 'user-agent': 'rag-immune-effector/test' });
    assert.ok(ports !== null && ports.online instanceof AdapterRagClient && ports.baseline instanceof AdapterRagClient);
    assert.deepEqual(await ports.online.query({ query: 'q' }), { answer: 'answer', chunks: [] });
    await ports.baseline.query({ query: 'q' });
    assert.deepEqual(asked, ['rag-immune-effector/test /online/invoke', 'rag-immune-effector/test /baseline/invoke']);
    assert.deepEqual(ports.signals.available, ['ic', 'answer_agreement']);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('issue 42: the adapter knowledge.newer_than_baseline reaches the verification probes (update when absent)', () => {
  const products = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/langserve.yaml', import.meta.url));
  const ports = verificationRagPorts(effectorConfigFromEnv({ ...base, EFFECTOR_RAG_ADAPTER_FILE: products }), {});
  assert.equal(ports?.newerKnowledge, 'unverified');
  const older = verificationRagPorts(effectorConfigFromEnv({ ...base, EFFECTOR_RAG_ADAPTER_FILE: langserve }), {});
  assert.equal(older?.newerKnowledge, 'update');
});

test('an adapter whose secret is missing refuses, naming the key and the variable', () => {
  const config = effectorConfigFromEnv({ ...base, EFFECTOR_RAG_ADAPTER_FILE: flowise });
  assert.throws(
    () => verificationRagPorts(config, {}, {}),
    (error: unknown) =>
      error instanceof AdapterFileError && /request\.headers\.authorization: environment variable FLOWISE_API_KEY/.test(error.message),
  );
});
