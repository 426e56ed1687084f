import type { RepairAction } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { RepairTool, ToolContext } from '../actions/repair-tool.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { ActionDoc, Versioned } from '../state/action-store.ts';
import type { EffectorMode } from '../state/mode-store.ts';
import { effectiveStatus } from './grant-store.ts';

/** What the gate says about running an action now. */
export type GateVerdict =
  /** Run it, under this grant (null: none needed). */
  | { pass: true; grant: RepairAction['grant'] }
  /** A human denied it: the action is recorded failed, the plan goes on. */
  | { pass: false; denied: true }
  /** A grant is requested and not yet decided: the plan waits. */
  | { pass: false; denied: false };

/**
 * The grant gate in front of every action that needs a human's yes: all of them in approve mode,
 * irreversible ones always, and any whose tool says this run costs too much to decide alone. An approval in force lets it run; a denial fails it; otherwise a request
 * is opened (or kept) and the action waits in awaiting_grant.
 */
export class GrantGate {
  constructor(
    private readonly deps: Pick<EffectorDeps, 'grants' | 'actions' | 'logger'>,
    private readonly events: ActionEvents,
  ) {}

  async check(v: Versioned<ActionDoc>, tool: RepairTool, mode: EffectorMode, ctx?: ToolContext): Promise<GateVerdict> {
    const { deps } = this;
    const d = v.doc;
    const costly = ctx && tool.grantReason ? await tool.grantReason(ctx, JSON.parse(d.args_json) as never) : null;
    if (!(mode === 'approve' || !tool.reversible || costly !== null)) return { pass: true, grant: null };
    const why = costly ?? (tool.reversible ? 'approve mode' : 'irreversible');
    const existing = await deps.grants.get(d.key);
    const status = existing ? effectiveStatus(existing.doc) : null;
    if (existing && status === 'approved') {
      return {
        pass: true,
        grant: {
          granted_by: existing.doc.decided_by ?? 'unknown',
          kind: 'human',
          granted_at: Date.parse(existing.doc.decided_at ?? existing.doc.requested_at),
        },
      };
    }
    if (existing && status === 'denied') {
      const failed = await deps.actions.move(v, 'failed', {
        failure: { reason: 'policy_denied', message: `grant denied by ${existing.doc.decided_by ?? 'unknown'}` },
        finished_at: new Date().toISOString(),
      });
      if (failed) await this.events.emit(failed.doc, 'failed');
      return { pass: false, denied: true };
    }
    await deps.grants.request({
      key: d.key,
      action_id: d.action_id,
      incident_id: d.incident_id,
      tool: d.tool,
      reversible: tool.reversible,
      reason: why,
    });
    if (d.status !== 'awaiting_grant') await deps.actions.move(v, 'awaiting_grant');
    healingLog(
      deps.logger,
      { incident_id: d.incident_id, action_id: d.action_id, tool: d.tool },
      `${d.tool} waits for a human grant (${why})`,
    );
    return { pass: false, denied: false };
  }
}
