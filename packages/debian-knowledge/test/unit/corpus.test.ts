import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CORPUS_FORMAT, loadDebianKnowledge, readCorpus } from '../../src/index.ts';

test('the committed corpus holds at least 700 source packages, each with a dated history', () => {
  const corpus = readCorpus();
  assert.equal(corpus.header.format, CORPUS_FORMAT);
  assert.ok(corpus.histories.size >= 700, `${corpus.histories.size} sources`);
  for (const [source, entries] of corpus.histories) {
    assert.ok(entries.length >= 2, `${source}: ${entries.length} uploads`);
    assert.ok(
      entries.every((e) => Number.isFinite(e.date.getTime()) && e.version !== ''),
      `${source}: every upload has a version and a date`,
    );
  }
  assert.ok(corpus.apt.length >= corpus.histories.size, `${corpus.apt.length} apt stanzas`);
});

test('some knowledge changed after the baseline date, so a frozen baseline differs from online', () => {
  const cut = new Date('2024-06-01T00:00:00Z').getTime();
  const { histories } = loadDebianKnowledge({ packages: 25 });
  const changed = [...histories.values()].filter((e) => e.some((x) => x.date.getTime() > cut) && e.some((x) => x.date.getTime() <= cut));
  assert.ok(changed.length >= 3, `${changed.length} of 25 packages changed after the baseline date`);
});

test('a subset is the same on every call and every machine: it reads the corpus, not the host', () => {
  const a = loadDebianKnowledge({ packages: 25 });
  const b = loadDebianKnowledge({ packages: 25 });
  assert.deepEqual([...a.histories.keys()], [...b.histories.keys()]);
  const corpus = readCorpus();
  for (const name of a.histories.keys()) assert.ok(corpus.histories.has(name), name);
  const records = a.sources.flatMap((s) => s.recordsPublishedBy(new Date('2030-01-01T00:00:00Z')));
  assert.ok(
    records.some((r) => r.knowledgeId.startsWith('apt/')),
    'apt metadata comes from the corpus too',
  );
  assert.ok(records.some((r) => r.knowledgeId.startsWith('changelog/')));
});

test('a foreign or damaged corpus file is refused, naming its path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-'));
  const foreign = join(dir, 'foreign.jsonl.gz');
  writeFileSync(foreign, gzipSync(`${JSON.stringify({ format: 'other/v9' })}\n`));
  assert.throws(() => readCorpus(foreign), new RegExp(`${foreign}: format other/v9`));
  const damaged = join(dir, 'damaged.jsonl.gz');
  writeFileSync(damaged, 'not gzip');
  assert.throws(() => readCorpus(damaged), /damaged\.jsonl\.gz cannot be read/);
});
