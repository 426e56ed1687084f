import { z } from 'zod';
import { defineTool, scopedKnowledgeIds, repairCallOptions } from './tool-helpers.ts';

/** Re-embeds and rewrites the named knowledge's chunks (`POST /repair/reindex`, forced). */
export const reindexKnowledge = defineTool({
  name: 'reindex_knowledge',
  readme: { ragHook: '`POST /repair/reindex {knowledge_ids}` (in place; the RAG has no alias)', undo: 'snapshot restore' },
  version: '1',
  intent: 'rebuild_index_incremental',
  description: 'Incremental reindex of the knowledge the report names (re-embed and rewrite its chunks)',
  input: z.object({ knowledge_ids: z.array(z.string().min(1)).min(1).max(10_000) }).strict(),
  touchesQdrant: true,
  reversible: true,
  availability: 'repair_hooks',
  plan: async (ctx) => ({ knowledge_ids: scopedKnowledgeIds(ctx) }),
  preconditions: async () => {},
  capture: async () => ({}),
  execute: (ctx, args) => ctx.online.reindex({ knowledge_ids: args.knowledge_ids }, repairCallOptions(ctx)),
  verify: async () => null,
  undo: async () => {},
  describeUndo: (args) => [`the ${args.knowledge_ids.length} reindexed knowledge ids come back with the collection snapshot`],
});
