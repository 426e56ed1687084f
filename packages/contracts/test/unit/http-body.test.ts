import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBodyMessage, jsonOrUndefined } from '../../src/http-body.ts';

test('http-body: JSON is parsed, anything else is undefined', () => {
  assert.deepEqual(jsonOrUndefined('{"a":1}'), { a: 1 });
  assert.equal(jsonOrUndefined('<html>bad gateway</html>'), undefined);
  assert.equal(jsonOrUndefined(''), undefined);
});

test("http-body: an error answer's message is its error field, else the start of its text", () => {
  assert.equal(errorBodyMessage({ error: 'no such incident' }, '{"error":"no such incident"}'), 'no such incident');
  const page = `<html>${'x'.repeat(300)}</html>`;
  assert.equal(errorBodyMessage(undefined, page), page.slice(0, 200));
  assert.equal(errorBodyMessage({ error: 42 }, 'raw'), 'raw');
  assert.equal(errorBodyMessage(null, 'raw text', 3), 'raw');
});
