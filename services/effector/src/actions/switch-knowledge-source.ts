import { defineTool } from './repair-tool.ts';
import { checkSources, knowledgeSourcesInput, onEachSource, planSources } from './knowledge-source-calls.ts';

/** Switches the failing source(s) to their backup feed and re-syncs the index (`POST /repair/knowledge-source`). */
export const switchToBackupSource = defineTool({
  name: 'switch_to_backup_source',
  version: '1',
  intent: 'switch_backup_source',
  description: 'Switch the knowledge source owning the affected knowledge to its backup feed, then re-sync',
  input: knowledgeSourcesInput,
  touchesQdrant: true,
  reversible: true,
  plan: async (ctx, params) => planSources(ctx, params),
  preconditions: (ctx, args) => checkSources(ctx, args.sources),
  capture: async () => ({}),
  execute: async (ctx, args) => ({ detail: { results: await onEachSource(ctx, args.sources, 'switch_to_backup') } }),
  verify: async () => null,
  async undo(ctx, args) {
    await onEachSource(ctx, args.sources, 'switch_to_primary');
  },
  describeUndo: (args) => [`${args.sources.join(', ')} switched back to the primary feed`, 'the index comes back from the snapshot'],
});
