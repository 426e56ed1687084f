import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectIntents, extractSlots, intentCoverage } from '../../src/signals/intent-coverage.ts';

interface LabelledCase {
  query: string;
  answer: string;
  expected_intents: string[];
  expected_ic_at_least?: number;
  expected_ic_at_most?: number;
}

const cases = readFileSync(fileURLToPath(new URL('../fixtures/intent-coverage.jsonl', import.meta.url)), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as LabelledCase);

test('labelled examples: intents detected and IC on the right side of its bound', () => {
  let agreed = 0;
  for (const example of cases) {
    const intents = detectIntents(example.query);
    for (const expected of example.expected_intents)
      assert.ok(intents.includes(expected as never), `"${example.query}" should have intent ${expected}, got ${intents}`);
    const { ic } = intentCoverage(example.query, example.answer);
    assert.notEqual(ic, null);
    if (example.expected_ic_at_least !== undefined)
      assert.ok((ic ?? 0) >= example.expected_ic_at_least, `"${example.answer}" IC ${ic} < ${example.expected_ic_at_least}`);
    if (example.expected_ic_at_most !== undefined)
      assert.ok((ic ?? 1) <= example.expected_ic_at_most, `"${example.answer}" IC ${ic} > ${example.expected_ic_at_most}`);
    agreed += 1;
  }
  assert.equal(agreed, cases.length);
  assert.ok(cases.length >= 16);
});

test('slots: package names, versions and quoted terms, without stop words or nested duplicates', () => {
  const slots = extractSlots('When was version 3.0.11-1 of "openssl" uploaded to Debian?');
  assert.ok(slots.includes('3.0.11-1'));
  assert.ok(slots.includes('openssl'));
  assert.ok(!slots.includes('version'));
});

test('an abstention covers nothing; a query without any node has no IC', () => {
  assert.equal(intentCoverage('When was openssl 3.0.11-1 released?', 'It was released on 2023-09-20.', true).ic, 0);
  assert.equal(intentCoverage('hello there', 'hi').ic, null);
});

test('covering the slots but not the asked-for content scores below covering both', () => {
  const both = intentCoverage('When was openssl 3.0.11-1 released?', 'openssl 3.0.11-1 was released on 2023-09-20.').ic ?? 0;
  const slotsOnly = intentCoverage('When was openssl 3.0.11-1 released?', 'openssl 3.0.11-1 is a version.').ic ?? 0;
  assert.ok(both > slotsOnly);
});
