import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugCapture } from '../../src/debug-capture.ts';

test('the debug capture keeps header names and the user agent but never a configured secret value', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'debug-capture-'));
  const secret = 'sk-live-4f9a"c2\\e81b7d';
  const capture = new DebugCapture(dir, {
    'user-agent': 'rag-immune-sentinel/0.1.0',
    'x-api-key': secret,
    authorization: 'Bearer tok-93a1b2c3d4',
  });
  // A RAG echoing the key back in its error body must not smuggle it into the file either.
  await capture.record({ probe_id: 'p1', response: { error: `bad key ${secret}`, echoed: 'tok-93a1b2c3d4' } });
  const [file] = readdirSync(dir);
  const text = readFileSync(join(dir, file!), 'utf8');
  assert.ok(!text.includes('sk-live-4f9a'), 'the API key is not in the capture');
  assert.ok(!text.includes('tok-93a1b2c3d4'), 'the bearer token is not in the capture');
  const line = JSON.parse(text) as { headers: Record<string, string>; response: { error: string } };
  assert.deepEqual(line.headers, { 'user-agent': 'rag-immune-sentinel/0.1.0', 'x-api-key': '[redacted]', authorization: '[redacted]' });
  assert.equal(line.response.error, 'bad key [redacted]');
});
