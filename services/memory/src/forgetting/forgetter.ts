import type { Logger } from 'pino';
import { healingLog } from '@rag-immune/worker-runtime';
import type { HealingCase } from '../cases/healing-case.ts';
import { CaseVersionConflictError, type CaseStore, type StoredCase } from '../cases/case-store.ts';
import type { MemoryMetrics } from '../metrics.ts';
import { planForgetting, type ForgettingOptions } from './forgetting-policy.ts';

export interface SweepResult {
  scanned: number;
  changed: number;
  transitions: number;
  /** Cases someone else wrote during the sweep; the next sweep sees them again. */
  conflicts: number;
}

/**
 * Runs the forgetting policy over the active cases on a schedule and writes each change under
 * optimistic concurrency (a case that changed meanwhile is left to the next sweep), then mirrors
 * the card status into the Qdrant payload the hard filters read.
 */
export class Forgetter {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | undefined;

  constructor(
    private readonly store: CaseStore,
    private readonly options: Omit<ForgettingOptions, 'now'>,
    private readonly logger: Logger,
    private readonly metrics?: MemoryMetrics,
    private readonly clock: () => number = Date.now,
  ) {}

  start(intervalSeconds: number): void {
    if (intervalSeconds <= 0) return;
    this.timer = setInterval(() => {
      void this.sweep().catch((error: unknown) => this.logger.warn({ err: String(error) }, 'forgetting sweep failed; next round retries'));
    }, intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One sweep (concurrent calls share it). */
  sweep(): Promise<SweepResult> {
    this.running ??= this.doSweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async doSweep(): Promise<SweepResult> {
    const stored = new Map<string, StoredCase>();
    for await (const entry of this.store.scan(['active'])) stored.set(entry.healingCase.case_id, entry);
    const plan = planForgetting(
      [...stored.values()].map((s) => s.healingCase),
      { ...this.options, now: this.clock() },
    );
    let conflicts = 0;
    const written: HealingCase[] = [];
    for (const next of plan.changed) {
      try {
        await this.store.write(next, stored.get(next.case_id) ?? null);
        written.push(next);
      } catch (error) {
        if (error instanceof CaseVersionConflictError) conflicts += 1;
        else throw error;
      }
    }
    const writtenIds = new Set(written.map((c) => c.case_id));
    for (const c of written) await this.store.syncPayload(c);
    let transitions = 0;
    for (const t of plan.transitions) {
      if (!writtenIds.has(t.case_id)) continue;
      transitions += 1;
      this.metrics?.transitions.inc({ field: t.field, reason: t.reason.startsWith('decayed') ? 'decayed' : t.reason });
      const c = stored.get(t.case_id)?.healingCase;
      healingLog(
        this.logger,
        {
          incident_id: c?.incident_id ?? 'unknown',
          case_id: t.case_id,
          field: t.field,
          from: t.from,
          to: t.to,
          reason: t.reason,
          related_case_id: t.related_case_id,
        },
        `case ${t.case_id} ${t.field} ${t.from} -> ${t.to} (${t.reason})`,
      );
    }
    return { scanned: stored.size, changed: written.length, transitions, conflicts };
  }
}
