import { epochMillis, integer, keyword, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

/** One of a component's rate-limit slots, held by the repair that claimed it last. */
export interface RateClaimDoc {
  component: string;
  slot: number;
  /** The action (incident:rREVISION:tool) that claimed it: its resume after a crash re-uses the claim. */
  action_key: string;
  claimed_at: number;
  claimed_by: string;
}

export type RateClaim = { claimed: true; slot: number } | { claimed: false; active: number };

/**
 * The per-component rate limit as a claim, not a count: a component has `limit` slot documents
 * (`<component>#0` … `#limit-1`); a repair may start only after taking one that is free (created
 * create-only) or whose last claim left the window (taken over by a compare-and-set). Two replicas
 * racing for the same slot: one write wins, the other tries the next slot; with none left the limit
 * holds. So at most `limit` repairs of a component start in any window, whatever the replicas do —
 * counting started actions and then starting (a read, then a write) let two replicas both start past it.
 */
export class ComponentRateClaims {
  private readonly docs: DocumentStore<RateClaimDoc>;

  constructor(stores: DocumentStores, index: string) {
    this.docs = stores.open<RateClaimDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: { dynamic: false, properties: { component: keyword, slot: integer, action_key: keyword, claimed_at: epochMillis } },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  /**
   * Claims a slot of `component` for the action, or says how many claims hold the window. A claim
   * the action already holds within the window is its own (a resumed repair is not counted twice).
   */
  async claim(request: {
    component: string;
    actionKey: string;
    owner: string;
    limit: number;
    windowMs: number;
    now?: number;
  }): Promise<RateClaim> {
    const now = request.now ?? Date.now();
    const ids = Array.from({ length: request.limit }, (_, slot) => `${request.component}#${slot}`);
    const found = new Map((await this.docs.getMany(ids)).map((hit) => [hit.id, hit]));
    const live = (doc: RateClaimDoc) => doc.claimed_at > now - request.windowMs;
    for (const [slot, id] of ids.entries()) {
      const hit = found.get(id);
      if (hit !== undefined && live(hit.doc) && hit.doc.action_key === request.actionKey) return { claimed: true, slot };
    }
    for (const [slot, id] of ids.entries()) {
      const hit = found.get(id);
      if (hit !== undefined && live(hit.doc)) continue;
      const doc: RateClaimDoc = {
        component: request.component,
        slot,
        action_key: request.actionKey,
        claimed_at: now,
        claimed_by: request.owner,
      };
      // Create-only when free, compare-and-set on the version read when expired: null means another writer took it first.
      const written = await this.docs.replace(id, doc, hit ?? null);
      if (written !== null) return { claimed: true, slot };
    }
    return { claimed: false, active: request.limit };
  }

  /**
   * Gives back the action's claim when its repair never started (a precondition refused it, another
   * replica had it): only started repairs count against the limit, as before claims existed.
   */
  async release(request: { component: string; actionKey: string; limit: number }): Promise<boolean> {
    const ids = Array.from({ length: request.limit }, (_, slot) => `${request.component}#${slot}`);
    for (const hit of await this.docs.getMany(ids)) if (hit.doc.action_key === request.actionKey) return this.docs.delete(hit.id, hit);
    return false;
  }
}
