import { defineTool } from './tool-helpers.ts';
import { checkSources, knowledgeSourcesInput, onEachSource, planSources } from './knowledge-source-calls.ts';

/**
 * Refreshes the source(s) from their feed now. Irreversible: the RAG's knowledge clock moves forward
 * and no hook moves it back (the index itself comes back from the snapshot), so it needs a grant.
 */
export const refreshKnowledgeSource = defineTool({
  name: 'refresh_knowledge_source',
  readme: { ragHook: '`POST /repair/knowledge-source {refresh}`', undo: 'snapshot restore only' },
  version: '1',
  intent: 'refresh_knowledge_source',
  description: 'Refresh the knowledge source owning the affected knowledge from its feed now',
  input: knowledgeSourcesInput,
  touchesQdrant: true,
  reversible: false,
  availability: 'repair_hooks',
  plan: async (ctx, params) => planSources(ctx, params),
  preconditions: (ctx, args) => checkSources(ctx, args.sources),
  capture: async () => ({}),
  execute: async (ctx, args) => ({ detail: { results: await onEachSource(ctx, args.sources, 'refresh') } }),
  verify: async () => null,
  undo: async () => {},
  describeUndo: () => ["the index comes back from the snapshot; the RAG's knowledge clock stays advanced (irreversible)"],
});
