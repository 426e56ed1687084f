/**
 * A small LangChain.js RAG as the tests trace it: a retriever over fixed versioned documents, a
 * prompt, a fake chat model from @langchain/core and a string parser, in one LCEL chain. The real
 * OpenInference LangChain instrumentation turns its runs into spans.
 */
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { FakeListChatModel } from '@langchain/core/utils/testing';

export const KNOWLEDGE = [
  {
    chunk_id: 'openssl-3.0.13#0',
    doc_id: 'openssl-3.0.13',
    knowledge_id: 'openssl',
    version: '3.0.13',
    source: 'debian-changelog',
    source_trust: 0.9,
    updated_at: '2024-03-01T00:00:00.000Z',
    valid_from: '2024-03-01T00:00:00.000Z',
    valid_until: null,
    retrieval_score: 0.82,
    text: 'openssl 3.0.13 is the latest version; it fixes CVE-2024-0727.',
  },
  {
    chunk_id: 'openssl-3.0.11#0',
    doc_id: 'openssl-3.0.11',
    knowledge_id: 'openssl',
    version: '3.0.11',
    source: 'debian-changelog',
    source_trust: 0.9,
    updated_at: '2023-09-20T00:00:00.000Z',
    valid_from: '2023-09-20T00:00:00.000Z',
    valid_until: '2024-03-01T00:00:00.000Z',
    retrieval_score: 0.61,
    text: 'openssl 3.0.11 was released in September 2023.',
  },
] as const;

export const ANSWER = 'The latest version of openssl is 3.0.13.';

/** Returns the fixed documents with the contract's metadata, as an ingest that keeps it would. */
class FixedRetriever extends BaseRetriever {
  override lc_namespace = ['rag_immune', 'test'];

  override async _getRelevantDocuments(): Promise<Document[]> {
    return KNOWLEDGE.map(({ text, ...metadata }) => new Document({ pageContent: text, metadata: { ...metadata } }));
  }
}

export function smallRagChain() {
  const retriever = new FixedRetriever();
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'Answer from the context only.\n\n{context}'],
    ['human', '{question}'],
  ]);
  return RunnableSequence.from([
    {
      context: retriever.pipe((docs: Document[]) => docs.map((d) => d.pageContent).join('\n\n')),
      question: new RunnablePassthrough(),
    },
    prompt,
    new FakeListChatModel({ responses: [ANSWER, ANSWER, ANSWER, ANSWER] }),
    new StringOutputParser(),
  ]);
}
