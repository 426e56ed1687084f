import { defineTool } from './tool-helpers.ts';
import { checkSources, knowledgeSourcesInput, onEachSource, planSources } from './knowledge-source-calls.ts';

/** Switches the failing source(s) to their backup feed and re-syncs the index (`POST /repair/knowledge-source`). */
export const switchToBackupSource = defineTool({
  name: 'switch_to_backup_source',
  readme: {
    ragHook: '`POST /repair/knowledge-source {switch_to_backup}` for the sources owning the affected ids',
    undo: '`switch_to_primary` + snapshot restore',
  },
  version: '1',
  intent: 'switch_backup_source',
  description: 'Switch the knowledge source owning the affected knowledge to its backup feed, then re-sync',
  input: knowledgeSourcesInput,
  touchesQdrant: true,
  reversible: true,
  availability: 'repair_hooks',
  plan: async (ctx, params) => planSources(ctx, params),
  preconditions: (ctx, args) => checkSources(ctx, args.sources),
  // The feeds active before: a source already on its backup (an earlier incident's repair) stays
  // there on undo; switching it "back" to primary would undo that repair too.
  capture: async (ctx) => ({ feeds: (await ctx.online.capabilities()).active_versions?.knowledge_sources ?? {} }),
  execute: async (ctx, args) => ({ detail: { results: await onEachSource(ctx, args.sources, 'switch_to_backup') } }),
  verify: async () => null,
  async undo(ctx, args, prior) {
    await onEachSource(ctx, switchedByThis(args.sources, prior), 'switch_to_primary');
  },
  describeUndo: (args, prior) => {
    const back = switchedByThis(args.sources, prior);
    const kept = args.sources.filter((source) => !back.includes(source));
    return [
      ...(back.length > 0 ? [`${back.join(', ')} switched back to the primary feed`] : []),
      ...(kept.length > 0 ? [`${kept.join(', ')} left on the backup feed it was on before`] : []),
      'the index comes back from the snapshot',
    ];
  },
});

/** The sources this switch moved off their primary (those not already on a backup before it). */
function switchedByThis(sources: readonly string[], prior: Readonly<Record<string, unknown>>): string[] {
  const feeds = (prior.feeds ?? {}) as Record<string, unknown>;
  return sources.filter((source) => feeds[source] !== 'backup');
}
