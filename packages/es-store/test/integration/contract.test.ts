/**
 * The one contract (test/contract/document-store-contract.ts) against the real Elasticsearch of the
 * local stack and, in the same run, against the in-memory twin: what the twin promises the workers'
 * unit tests is what the server does.
 */
import { after } from 'node:test';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { elasticsearchStores, memoryStores } from '../../src/index.ts';
import { documentStoreContract } from '../contract/document-store-contract.ts';

const es = new Client({ node: stackEndpoints(loadStackConfig()).elasticsearchUrl });
const prefix = `it-es-store-${randomUUID().slice(0, 8)}`;

documentStoreContract({ name: 'elasticsearch', stores: elasticsearchStores(es), indexName: (label) => `${prefix}-${label}` });
documentStoreContract({ name: 'memory twin', stores: memoryStores(), indexName: (label) => `${prefix}-${label}` });

after(async () => {
  await es.indices.delete({ index: `${prefix}-*`, ignore_unavailable: true, allow_no_indices: true });
  await es.close();
});
