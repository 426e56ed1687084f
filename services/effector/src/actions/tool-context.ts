import type { RootCauseReport } from '@rag-immune/contracts';
import type { EffectorDeps } from '../effector-deps.ts';
import { UNFINISHED } from '../state/action-state.ts';
import type { ActionDoc } from '../state/action-store.ts';
import { CATALOGUE, type ToolBox } from './catalogue.ts';
import type { PriorState, ToolContext } from './repair-tool.ts';

/** What a tool may read and call for this report. */
export function toolContextFor(deps: EffectorDeps, report: RootCauseReport): ToolContext {
  const tools = deps.tools ?? CATALOGUE;
  return {
    report,
    online: deps.online,
    baseline: deps.baseline,
    sourceByPrefix: deps.sourceByPrefix,
    collection: deps.collection,
    listSnapshots: (collection) => deps.snapshots.list({ collection }),
    restoreSnapshot: async (record) => void (await deps.snapshots.restore(record)),
    aliases: deps.aliases,
    ...(deps.points !== undefined ? { points: deps.points } : {}),
    collectionsInFlight: async () => {
      const unfinished = await deps.actions.list({ statuses: [...UNFINISHED] });
      return new Set(unfinished.flatMap((a) => collectionsProtectedBy(tools, a)));
    },
    timeoutMs: deps.ragTimeoutMs,
    ...(deps.restoreMaxSnapshotAgeMs !== undefined ? { restoreMaxSnapshotAgeMs: deps.restoreMaxSnapshotAgeMs } : {}),
    ...(deps.ragRepair !== undefined ? { ragRepair: deps.ragRepair } : {}),
    ...(deps.aliasHistory !== undefined ? { aliasHistory: deps.aliasHistory } : {}),
  };
}

/** The collections an unfinished action's tool says it still needs (a build target, the generation it retired). */
function collectionsProtectedBy(tools: ToolBox, action: ActionDoc): string[] {
  const tool = tools.named(action.tool);
  if (tool?.protectedCollections === undefined) return [];
  try {
    return tool.protectedCollections(JSON.parse(action.args_json) as never, JSON.parse(action.prior_json ?? '{}') as PriorState);
  } catch {
    return []; // arguments that are not JSON name nothing
  }
}
