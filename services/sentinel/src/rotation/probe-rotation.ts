import type { Logger } from 'pino';
import type { GoldenProbe, ProbeSetReport, QueryLogEntry } from '@rag-immune/probing';
import { newProposalId, sha256, type ProposalStore, type RotationChange, type RotationCheck, type RotationProposal } from './proposal.ts';
import { planRetirements, selectCandidates, type CandidateOptions, type Declined, type RetirementOptions } from './rotation-rules.ts';
import type { TrafficCluster } from './traffic-digest.ts';

/** What the rotation reads and writes, each behind a port so the rules are tested without a stack. */
export interface RotationPorts {
  /** The probe file: its probes and its exact text (the proposal pins its hash). */
  loadCatalog(): Promise<{ probes: GoldenProbe[]; text: string; active: GoldenProbe[] }>;
  saveCatalog(probes: GoldenProbe[]): Promise<void>;
  /** Incidents not closed; null when they cannot be known (identifier unreachable): no rotation then. */
  openIncidents(): Promise<string[] | null>;
  /** Online FCS per probe id since `sinceMs`, and the segments the traffic watcher's replays named. */
  history(sinceMs: number): Promise<{ fcs: Map<string, number[]>; flaggedSegments: Set<string> }>;
  /** Whether the online RAG knows the knowledge id; null when the lookup failed (nothing is retired on a failure). */
  knowledgeExists(knowledgeId: string): Promise<boolean | null>;
  /** The users' query clusters since `sinceMs`; null when the per-RAG traffic switch is off. */
  traffic(sinceMs: number): Promise<{ answers: number; clusters: TrafficCluster[] } | null>;
  /** Told the active probes once an accepted proposal is written (the running sentinel switches to them). */
  applied?(active: GoldenProbe[]): void;
  /** The probe-set builder over these candidates against the frozen baseline, at most `size` probes. */
  vet(candidates: QueryLogEntry[], size: number): Promise<ProbeSetReport>;
}

export interface RotationOptions extends RetirementOptions, CandidateOptions {
  intervalMs: number;
}

/** A refused decision, with the HTTP status the API answers it with. */
export class RotationRefusal extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'RotationRefusal';
  }
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The probe set's periodic rotation (issue 38 item 4): when one is due and no incident is open, a
 * proposal — retirements and additions, each with its reason — is stored for review. Nothing
 * changes the probe set until a caller with the operate role accepts it.
 */
export class ProbeRotation {
  constructor(
    private readonly ports: RotationPorts,
    private readonly store: ProposalStore,
    private readonly options: RotationOptions,
    private readonly logger?: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One look at the schedule; `force` ignores the interval (never an open incident). */
  async tick(force = false): Promise<RotationCheck & { proposal?: RotationProposal }> {
    const now = this.now();
    const last = (await this.store.list()).at(-1);
    if (!force && last !== undefined && now.getTime() - Date.parse(last.created_at) < this.options.intervalMs)
      return { at: iso(now), outcome: 'not-due', detail: `last proposal ${last.proposal_id} at ${last.created_at}` };
    const incidents = await this.ports.openIncidents();
    if (incidents === null || incidents.length > 0) {
      const check: RotationCheck =
        incidents === null
          ? { at: iso(now), outcome: 'skipped-unknown-incidents', detail: 'the identifier could not say whether an incident is open' }
          : { at: iso(now), outcome: 'skipped-incident', detail: `incidents open: ${incidents.join(', ')}` };
      await this.store.recordCheck(check);
      this.logger?.info(check, 'probe rotation skipped');
      return check;
    }
    try {
      const proposal = await this.propose(now);
      const check: RotationCheck = {
        at: iso(now),
        outcome: 'proposed',
        detail: `${proposal.proposal_id}: ${proposal.changes.filter((c) => c.kind === 'retire').length} to retire, ${proposal.changes.filter((c) => c.kind === 'add').length} to add`,
      };
      await this.store.add(proposal, check);
      this.logger?.info({ proposal_id: proposal.proposal_id, changes: proposal.changes.length }, 'probe rotation proposed');
      return { ...check, proposal };
    } catch (error) {
      const check: RotationCheck = { at: iso(now), outcome: 'failed', detail: (error as Error).message };
      await this.store.recordCheck(check);
      this.logger?.error({ err: error }, 'probe rotation failed');
      return check;
    }
  }

  private async propose(now: Date): Promise<RotationProposal> {
    const since = now.getTime() - this.options.intervalMs;
    const catalog = await this.ports.loadCatalog();
    const active = catalog.active;
    const history = await this.ports.history(since);

    const gone = new Map<string, string[]>();
    for (const probe of active) {
      const missing: string[] = [];
      for (const id of probe.expected_sources) if ((await this.ports.knowledgeExists(id)) === false) missing.push(id);
      if (missing.length > 0) gone.set(probe.id, missing);
    }
    const distrusted: Declined[] = [];
    if (active.length > 1 && gone.size === active.length) {
      // Every source gone at once is a lookup the RAG does not serve (or a wiped index: an incident), not a rotation.
      distrusted.push({
        query: '*',
        rule: 'retire-gone-source',
        reason: 'no probe retired for its source: every source looked gone at once',
      });
      gone.clear();
    }
    const planned = planRetirements(active, history.fcs, gone, this.options);
    const retire = planned.retire;
    const declined = [...distrusted, ...planned.declined];
    const retiring = new Set(retire.map((c) => c.probe_id));
    const remaining = active.filter((p) => !retiring.has(p.id));

    const traffic = await this.ports.traffic(since);
    const adds: RotationChange[] = [];
    const turnedDown: Declined[] = [];
    let candidates = 0;
    if (traffic !== null) {
      const { fragile, frequent } = selectCandidates(traffic.clusters, remaining, history.flaggedSegments, this.options);
      candidates = fragile.length + frequent.length;
      const ids = new Set(catalog.probes.map((p) => p.id));
      for (const [list, size] of [
        [fragile, this.options.maxFragile],
        [frequent, this.options.maxFrequent],
      ] as const) {
        if (list.length === 0 || size === 0) continue;
        const report = await this.ports.vet(
          list.map((c) => c.entry),
          size,
        );
        for (const candidate of list)
          if (!report.verdicts.some((v) => v.query === candidate.entry.query))
            turnedDown.push({
              query: candidate.entry.query,
              rule: candidate.rule,
              reason: `not vetted: the builder filled its ${size} places first`,
            });
        for (const verdict of report.verdicts) {
          const candidate = list.find((c) => c.entry.query === verdict.query);
          if (candidate === undefined) continue;
          const built = verdict.accepted ? report.probes.find((p) => p.query === verdict.query) : undefined;
          if (built === undefined) {
            turnedDown.push({ query: verdict.query, rule: candidate.rule, reason: `builder: ${verdict.reason}` });
            continue;
          }
          // The builder numbers its own set; a stable id unique in this probe file.
          const base = `${built.id.replace(/-\d+$/, '')}-r${now.toISOString().slice(0, 10).replaceAll('-', '')}`;
          let id = base;
          for (let n = 2; ids.has(id); n++) id = `${base}-${n}`;
          ids.add(id);
          const probe: GoldenProbe = { ...built, id, cluster: candidate.rule === 'add-fragile' ? 'fragile' : 'head' };
          adds.push({
            kind: 'add',
            rule: candidate.rule,
            probe_id: id,
            query: probe.query,
            reason: `${candidate.why}; builder: ${verdict.reason}`,
            probe,
          });
        }
      }
    }
    return {
      proposal_id: newProposalId(now),
      created_at: iso(now),
      state: 'pending',
      probe_file_sha256: sha256(catalog.text),
      changes: [...retire, ...adds],
      considered: {
        active_probes: active.length,
        probes_with_history: active.filter((p) => (history.fcs.get(p.id)?.length ?? 0) > 0).length,
        traffic: traffic === null ? 'off' : 'read',
        traffic_answers: traffic?.answers ?? 0,
        traffic_clusters: traffic?.clusters.length ?? 0,
        candidates,
      },
      declined: [...declined, ...turnedDown],
      decided_at: null,
      decided_by: null,
    };
  }

  async proposals(): Promise<{ proposals: RotationProposal[]; last_check: RotationCheck | null }> {
    return this.store.read();
  }

  /**
   * Applies a pending proposal to the probe file: retired probes keep their line with `retired_at`
   * and the reason, added ones are appended. Refused when the file changed since the proposal was
   * made (its changes were judged against another set) or while an incident is open (the probes
   * are the incident's evidence and its repair's verification).
   */
  async accept(id: string, actor: string): Promise<RotationProposal> {
    const proposal = await this.pending(id);
    const incidents = await this.ports.openIncidents();
    if (incidents === null) throw new RotationRefusal(409, 'cannot tell whether an incident is open (identifier unreachable); try again');
    if (incidents.length > 0) throw new RotationRefusal(409, `incidents open: ${incidents.join(', ')}; accept once they are closed`);
    const catalog = await this.ports.loadCatalog();
    if (sha256(catalog.text) !== proposal.probe_file_sha256)
      throw new RotationRefusal(409, `the probe file changed since ${id} was made; reject it and wait for (or force) a new proposal`);
    const now = this.now();
    const retiring = new Map(proposal.changes.filter((c) => c.kind === 'retire').map((c) => [c.probe_id, c.reason]));
    const kept = catalog.probes.map((p) => {
      const reason = retiring.get(p.id);
      return reason === undefined ? p : { ...p, retired_at: iso(now), retired_reason: `rotation ${id}: ${reason}` };
    });
    const added = proposal.changes.flatMap((c) =>
      c.kind === 'add' && c.probe !== undefined ? [{ ...c.probe, created_at: iso(now) }] : [],
    );
    const next = [...kept, ...added];
    await this.ports.saveCatalog(next);
    this.ports.applied?.(
      next.filter((p) => p.retired_at === null || p.retired_at === undefined || Date.parse(p.retired_at) > now.getTime()),
    );
    const decided: RotationProposal = { ...proposal, state: 'accepted', decided_at: iso(now), decided_by: actor };
    await this.store.update(decided);
    this.logger?.info({ proposal_id: id, actor, retired: retiring.size, added: added.length }, 'probe rotation accepted');
    return decided;
  }

  async reject(id: string, actor: string): Promise<RotationProposal> {
    const proposal = await this.pending(id);
    const decided: RotationProposal = { ...proposal, state: 'rejected', decided_at: iso(this.now()), decided_by: actor };
    await this.store.update(decided);
    this.logger?.info({ proposal_id: id, actor }, 'probe rotation rejected');
    return decided;
  }

  private async pending(id: string): Promise<RotationProposal> {
    const proposal = await this.store.get(id);
    if (proposal === undefined) throw new RotationRefusal(404, `no proposal ${id}`);
    if (proposal.state !== 'pending') throw new RotationRefusal(409, `proposal ${id} is ${proposal.state}, not pending`);
    return proposal;
  }
}
