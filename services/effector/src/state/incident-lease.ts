import { randomUUID } from 'node:crypto';
import { epochMillis, keyword, type DocumentStore, type DocumentStores, type Versioned } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

/** Who works on an incident now, across every replica: one document per incident (or per collection). */
export interface IncidentLeaseDoc {
  key: string;
  /** The replica (EFFECTOR_INSTANCE_ID) holding it. */
  owner: string;
  /** This hold's id: which of the owner's holds it is (a restarted replica's predecessor's differs). */
  hold_id: string;
  /** What it is doing: `repair` or `manual rollback of <target> by <actor>`. */
  purpose: string;
  /** Epoch ms: after this the lease is free to take over (its owner died without releasing it). */
  until: number;
  taken_at: string;
}

/** Another replica (or another of this replica's commands) holds the incident: 409 with its holder and expiry. */
export class IncidentLeaseRefused extends Error {
  constructor(
    readonly key: string,
    readonly holder: IncidentLeaseDoc,
  ) {
    super(
      `incident ${key} is leased by effector ${holder.owner} (${holder.purpose}) until ${new Date(holder.until).toISOString()}; try again once it has finished`,
    );
    this.name = 'IncidentLeaseRefused';
  }
}

/** This process's hold on an incident's lease (IncidentLeases.acquire). */
export interface IncidentLease {
  readonly key: string;
  /** Aborts when the lease is lost: its renewal failed for a whole lease, or another replica took it over. */
  readonly signal: AbortSignal;
  /** Stops renewing and deletes the lease document (only if it is still this hold's). */
  release(): Promise<void>;
}

export interface IncidentLeaseOptions {
  /** This replica: a lease document naming it, not held by this process, was left by a predecessor that died. */
  owner: string;
  /** How far each renewal pushes the expiry. */
  leaseMs: number;
  /** Default a third of leaseMs. */
  renewEveryMs?: number;
  now?: () => number;
}

/**
 * The incident lease: a create-only document per incident in Elasticsearch, so at most one replica
 * acts on an incident at once, whether the automatic repair run or an operator's manual rollback.
 * Taken with `op_type: create`; a lease past its expiry (its replica died) is taken over with a
 * compare-and-set on `_seq_no`/`_primary_term`, so two replicas taking over the same dead lease
 * cannot both win; renewed every third of the lease while the work runs; deleted (if still ours)
 * when it ends. Within one process the same key is never held twice (a second command on a held
 * incident is refused, not merged).
 */
export class IncidentLeases {
  private readonly docs: DocumentStore<IncidentLeaseDoc>;
  private readonly held = new Map<string, HeldIncidentLease>();
  private readonly now: () => number;

  constructor(
    stores: DocumentStores,
    index: string,
    private readonly options: IncidentLeaseOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.docs = stores.open<IncidentLeaseDoc>({
      name: index,
      refresh: false,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: { dynamic: false, properties: { key: keyword, owner: keyword, until: epochMillis } },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  /** Who holds the key now (a live lease), or null. */
  async holder(key: string): Promise<IncidentLeaseDoc | null> {
    const current = await this.docs.get(key);
    return current !== null && current.doc.until > this.now() ? current.doc : null;
  }

  /** Takes the key's lease for `purpose`, or throws IncidentLeaseRefused naming the live holder. */
  async acquire(key: string, purpose: string): Promise<IncidentLease> {
    const mine = this.held.get(key);
    if (mine !== undefined) throw new IncidentLeaseRefused(key, mine.latest.doc);
    const doc = (): IncidentLeaseDoc => ({
      key,
      owner: this.options.owner,
      hold_id: randomUUID(),
      purpose,
      until: this.now() + this.options.leaseMs,
      taken_at: new Date(this.now()).toISOString(),
    });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const created = await this.docs.create(key, doc());
      if (created !== null) return this.hold(created);
      const current = await this.docs.get(key);
      if (current === null) continue; // released meanwhile: create again
      // Ours but held by no one in this process: a predecessor with this replica's id died holding it.
      const abandoned = current.doc.owner === this.options.owner && !this.held.has(key);
      if (!abandoned && current.doc.until > this.now()) throw new IncidentLeaseRefused(key, current.doc);
      const taken = await this.docs.replace(key, doc(), current);
      if (taken !== null) return this.hold(taken);
      // Another replica took it over (or renewed it) first: look again.
    }
    const latest = await this.docs.get(key);
    throw new IncidentLeaseRefused(key, latest?.doc ?? doc());
  }

  /** Runs `work` under the key's lease, released afterwards whatever the outcome. */
  async withLease<T>(key: string, purpose: string, work: (lease: IncidentLease) => Promise<T>): Promise<T> {
    const lease = await this.acquire(key, purpose);
    try {
      return await work(lease);
    } finally {
      await lease.release();
    }
  }

  private hold(taken: Versioned<IncidentLeaseDoc>): IncidentLease {
    const lease = new HeldIncidentLease(taken, this.docs, this.options.leaseMs, this.options.renewEveryMs, this.now, () => {
      if (this.held.get(taken.doc.key) === lease) this.held.delete(taken.doc.key);
    });
    this.held.set(taken.doc.key, lease);
    return lease;
  }
}

class HeldIncidentLease implements IncidentLease {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly every: number;
  private chain: Promise<unknown> = Promise.resolve();
  private ended = false;
  private released = false;

  constructor(
    public latest: Versioned<IncidentLeaseDoc>,
    private readonly docs: DocumentStore<IncidentLeaseDoc>,
    private readonly leaseMs: number,
    renewEveryMs: number | undefined,
    private readonly now: () => number,
    private readonly forget: () => void,
  ) {
    this.every = renewEveryMs ?? Math.max(50, Math.floor(leaseMs / 3));
    this.timer = setInterval(() => void this.serial(() => this.renew()), this.every);
    this.timer.unref();
  }

  get key(): string {
    return this.latest.doc.key;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async renew(): Promise<void> {
    if (this.ended) return;
    const v = this.latest;
    const renewed = await this.docs.replace(v.doc.key, { ...v.doc, until: this.now() + this.leaseMs }, v).catch(() => undefined);
    if (renewed === undefined) {
      // Elasticsearch unreachable: tried again next tick, unless the lease runs out before then.
      if (this.now() + this.every >= v.doc.until) this.lose(`lease on ${v.doc.key} could not be renewed in time`);
      return;
    }
    if (renewed === null) {
      this.lose(`lease on ${v.doc.key} taken over by another replica`);
      return;
    }
    this.latest = renewed;
  }

  private lose(why: string): void {
    this.stop();
    this.controller.abort(new Error(why));
  }

  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    this.forget();
  }

  release(): Promise<void> {
    return this.serial(async () => {
      if (this.released) return;
      this.released = true;
      this.stop();
      // Only if still this hold's (compare-and-set on the last version it wrote): a lease taken over
      // meanwhile is the new holder's; one lost only to an unreachable store is freed now it answers.
      await this.docs.delete(this.latest.doc.key, this.latest).catch(() => undefined);
    });
  }
}
