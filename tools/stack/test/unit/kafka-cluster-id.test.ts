import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newClusterId } from '../../src/services/kafka.ts';

test("a new Kafka cluster id is 16 bytes in base64url and never starts with '-' (kafka-storage would read it as an option)", () => {
  // One draw in 64 would start with '-' without the guard: 5,000 draws miss it with probability ~1e-34.
  for (let i = 0; i < 5_000; i++) {
    const id = newClusterId();
    assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    assert.equal(Buffer.from(id, 'base64url').length, 16);
  }
});
