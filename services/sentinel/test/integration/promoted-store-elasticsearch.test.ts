/**
 * The promoted replay probes' store on the real Elasticsearch: a promotion put by one process is
 * loaded by the next, removed when it expires, and one older than its lifetime is deleted on load;
 * the user's query is stored unsearchable (kept to be replayed, not indexed).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { endpoints } from '@rag-immune/test-kit/stack';
import { EsPromotedStore, promotedReplaysIndex } from '../../src/traffic/promoted-store.ts';

const index = promotedReplaysIndex(`it-promoted-${randomUUID().slice(0, 8)}`);
const es = new Client({ node: endpoints.elasticsearchUrl });
after(async () => {
  await es.indices.delete({ index }).catch(() => undefined);
  await es.close();
});

test('promotions are put, loaded by a new store, removed, and expired on load', async () => {
  const now = Date.now();
  const first = new EsPromotedStore(es, index, 10);
  assert.deepEqual(await first.load(now, 60_000), [], 'no index yet: nothing to restore');
  await first.put({ probe_id: 'traffic-pkg-zlib-1', segment: 'pkg-zlib', query: 'what does zlib do', promoted_at: now - 1000 });
  await first.put({ probe_id: 'traffic-pkg-curl-2', segment: 'pkg-curl', query: 'curl license', promoted_at: now - 500 });
  await first.put({ probe_id: 'traffic-pkg-old-3', segment: 'pkg-old', query: 'old', promoted_at: now - 120_000 });
  await es.indices.refresh({ index });

  const second = new EsPromotedStore(es, index, 10);
  assert.deepEqual(
    (await second.load(now, 60_000)).map((e) => [e.probe_id, e.segment, e.query]),
    [
      ['traffic-pkg-zlib-1', 'pkg-zlib', 'what does zlib do'],
      ['traffic-pkg-curl-2', 'pkg-curl', 'curl license'],
    ],
  );
  const old = await es.get({ index, id: 'traffic-pkg-old-3' }, { ignore: [404] });
  assert.equal(old.found, false, 'older than its lifetime: deleted');

  await second.remove('traffic-pkg-zlib-1');
  await second.remove('traffic-never-stored');
  await es.indices.refresh({ index });
  assert.deepEqual(
    (await second.load(now, 60_000)).map((e) => e.probe_id),
    ['traffic-pkg-curl-2'],
  );
  const searched = await es.search({ index, query: { term: { query: 'curl license' } } }).catch((error: Error) => error);
  assert.ok(searched instanceof Error || searched.hits.hits.length === 0, 'the query is not searchable');
});
