/**
 * The stack's Apicurio registry through its Confluent-compatible API (plain fetch): the global
 * compatibility is BACKWARD and it is really enforced, i.e. a BACKWARD-incompatible Avro change
 * is refused with 409. Assumes `npm run stack -- up schema-registry` has been run.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { loadStackConfig, stackEndpoints } from '../../src/index.ts';

const { schemaRegistryUrl } = stackEndpoints(loadStackConfig());
const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** The fields of ccompat replies these tests read. */
interface Reply {
  id?: number;
  is_compatible?: boolean;
  compatibilityLevel?: string;
}

async function call<T = Reply>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`${schemaRegistryUrl}${path}`, {
    method,
    headers: { 'content-type': CONTENT_TYPE, accept: CONTENT_TYPE },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as T };
}

const record = (fields: object[]) => ({
  schema: JSON.stringify({ type: 'record', name: 'StackProbe', namespace: 'rag.immune.test', fields }),
});

test('global compatibility is BACKWARD', async () => {
  const { status, json } = await call('GET', '/config');
  assert.equal(status, 200);
  assert.equal(json.compatibilityLevel, 'BACKWARD');
});

test('a BACKWARD-incompatible change is rejected with 409, a compatible one accepted', async (t) => {
  const subject = `stack-test-${randomUUID()}-value`;
  t.after(async () => {
    await call('DELETE', `/subjects/${subject}`);
    await call('DELETE', `/subjects/${subject}?permanent=true`);
  });

  const v1 = await call('POST', `/subjects/${subject}/versions`, record([{ name: 'a', type: 'string' }]));
  assert.equal(v1.status, 200, JSON.stringify(v1.json));
  assert.equal(typeof v1.json.id, 'number');

  // A new required field without default: readers of v2 cannot read v1 data.
  const breaking = record([
    { name: 'a', type: 'string' },
    { name: 'b', type: 'string' },
  ]);
  const check = await call('POST', `/compatibility/subjects/${subject}/versions/latest`, breaking);
  assert.equal(check.status, 200, JSON.stringify(check.json));
  assert.equal(check.json.is_compatible, false);
  const refused = await call('POST', `/subjects/${subject}/versions`, breaking);
  assert.equal(refused.status, 409, JSON.stringify(refused.json));

  const compatible = record([
    { name: 'a', type: 'string' },
    { name: 'b', type: 'string', default: '' },
  ]);
  const v2 = await call('POST', `/subjects/${subject}/versions`, compatible);
  assert.equal(v2.status, 200, JSON.stringify(v2.json));
  assert.notEqual(v2.json.id, v1.json.id);

  const versions = await call<number[]>('GET', `/subjects/${subject}/versions`);
  assert.deepEqual(versions.json, [1, 2]);
  const latest = await call('GET', `/subjects/${subject}/versions/latest`);
  assert.equal(latest.json.id, v2.json.id);
});
