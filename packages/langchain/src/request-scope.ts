/**
 * What one /query request hands the retriever (its as-of time, how many chunks the generator gets)
 * and what the retriever hands back (candidates and context with their scores), without threading
 * them through the user's chain: an AsyncLocalStorage scope around the chain's invocation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DocumentInterface } from '@langchain/core/documents';

export interface QueryScope {
  asOf: Date;
  topK: number;
  /** Filled by the retriever: before and after reranking. */
  candidates: DocumentInterface[];
  context: DocumentInterface[];
}

const storage = new AsyncLocalStorage<QueryScope>();

export function inQueryScope<T>(scope: QueryScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}

/** The current request's scope; undefined when the retriever runs outside the query handler. */
export function currentQueryScope(): QueryScope | undefined {
  return storage.getStore();
}
