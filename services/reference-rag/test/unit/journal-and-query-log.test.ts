import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultJournal } from '../../src/faults/fault-journal.ts';
import { QueryLog } from '../../src/query-log.ts';
import { TraceStore } from '../../src/traces/trace-store.ts';

test('the fault journal appends timestamped JSONL and keeps the entries for the API', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'rr-journal-')), 'faults.jsonl');
  const journal = new FaultJournal(path);
  journal.record(
    { action: 'inject', kind: 'parser-bug', mode: 'boilerplate', instance: 'online', affected_knowledge_ids: ['changelog/bash'] },
    new Date('2026-01-01T00:00:00.123Z'),
  );
  journal.record({ action: 'undo', kind: 'parser-bug', instance: 'online', affected_knowledge_ids: null });
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { at: string; action: string });
  assert.equal(lines.length, 2);
  assert.equal(lines[0]!.at, '2026-01-01T00:00:00.123Z');
  assert.deepEqual(
    journal.list().map((entry) => entry.action),
    ['inject', 'undo'],
  );
});

test('the query log counts distinct queries and writes JSONL, most frequent first', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'rr-querylog-')), 'queries.jsonl');
  const log = new QueryLog(path);
  log.record('What is the latest version of bash?');
  log.record('Who maintains the curl package?');
  log.record(' What is the latest version of bash? ');
  log.flush();
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { query: string; count: number });
  assert.deepEqual(
    lines.map((line) => [line.query, line.count]),
    [
      ['What is the latest version of bash?', 2],
      ['Who maintains the curl package?', 1],
    ],
  );
});

test('the trace store is bounded', () => {
  const store = new TraceStore(2);
  for (const id of ['a', 'b', 'c']) store.put({ trace_id: id } as Parameters<TraceStore['put']>[0]);
  assert.equal(store.get('a'), undefined);
  assert.equal(store.size, 2);
});
