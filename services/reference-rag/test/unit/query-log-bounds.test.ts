import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ragConfigFromEnv } from '../../src/config.ts';
import { QueryLog } from '../../src/query-log.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

test('the query log keeps at most maxEntries distinct queries, dropping the least recently seen', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'rr-querylog-')), 'queries.jsonl');
  const log = new QueryLog(path, { maxEntries: 3, maxAgeMs: 24 * 3600_000 });
  log.record('a', at(0));
  log.record('b', at(1));
  log.record('c', at(2));
  log.record('a', at(3)); // a is recent again: b is now the oldest
  log.record('d', at(4));
  assert.equal(log.size, 3);
  assert.deepEqual(
    log.lines().map((line) => [line.query, line.count]),
    [
      ['a', 2],
      ['c', 1],
      ['d', 1],
    ],
  );
  for (let i = 0; i < 10_000; i++) log.record(`flood ${i}`, at(5));
  assert.equal(log.size, 3);
  log.flush(at(5));
  assert.equal(readFileSync(path, 'utf8').trim().split('\n').length, 3);
});

test('queries not seen for maxAgeMs leave the log, on record and on flush', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'rr-querylog-')), 'queries.jsonl');
  const log = new QueryLog(path, { maxEntries: 100, maxAgeMs: 10 * 60_000 });
  log.record('old', at(0));
  log.record('newer', at(5));
  log.record('fresh', at(12)); // old (12 min) expires; newer (7 min) stays
  assert.deepEqual(
    log
      .lines()
      .map((line) => line.query)
      .sort(),
    ['fresh', 'newer'],
  );
  log.flush(at(20)); // newer is 15 minutes old by now
  assert.deepEqual(
    readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { query: string }).query),
    ['fresh'],
  );
});

test('the query log limits are configurable and validated', () => {
  const base = { QDRANT_URL: 'http://q:6333' };
  const config = ragConfigFromEnv(base);
  assert.equal(config.QUERY_LOG_MAX_ENTRIES, 10_000);
  assert.equal(config.QUERY_LOG_MAX_AGE_HOURS, 168);
  assert.equal(ragConfigFromEnv({ ...base, QUERY_LOG_MAX_ENTRIES: '500', QUERY_LOG_MAX_AGE_HOURS: '1.5' }).QUERY_LOG_MAX_AGE_HOURS, 1.5);
  assert.throws(() => ragConfigFromEnv({ ...base, QUERY_LOG_MAX_ENTRIES: '0' }), /QUERY_LOG_MAX_ENTRIES/);
  assert.throws(() => ragConfigFromEnv({ ...base, QUERY_LOG_MAX_AGE_HOURS: 'forever' }), /QUERY_LOG_MAX_AGE_HOURS/);
});
