import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { GoldenProbeSchema } from '@rag-immune/probing';

/** The four rules a rotation applies; every change names the one that made it. */
export const ROTATION_RULES = ['retire-unmoving', 'retire-gone-source', 'add-frequent', 'add-fragile'] as const;
export type RotationRule = (typeof ROTATION_RULES)[number];

/** One change a proposal makes to the probe set, with its reason. Queries are the intake's redacted text. */
export const RotationChangeSchema = z.object({
  kind: z.enum(['retire', 'add']),
  rule: z.enum(ROTATION_RULES),
  probe_id: z.string().min(1),
  query: z.string(),
  reason: z.string().min(1),
  /** The probe to add, as the probe-set builder made it against the frozen baseline. */
  probe: GoldenProbeSchema.optional(),
});
export type RotationChange = z.infer<typeof RotationChangeSchema>;

export const PROPOSAL_STATES = ['pending', 'accepted', 'rejected', 'superseded'] as const;

export const RotationProposalSchema = z.object({
  proposal_id: z.string().regex(/^rot-[0-9a-z]+-[0-9a-f]{6}$/),
  created_at: z.string(),
  state: z.enum(PROPOSAL_STATES),
  /** The probe file the proposal was made against: accepting it onto a changed file is refused. */
  probe_file_sha256: z.string().length(64),
  changes: z.array(RotationChangeSchema),
  /** What the proposal was made from, so a reviewer can judge it. */
  considered: z.object({
    active_probes: z.number().int(),
    probes_with_history: z.number().int(),
    traffic: z.enum(['read', 'off']),
    traffic_answers: z.number().int(),
    traffic_clusters: z.number().int(),
    candidates: z.number().int(),
  }),
  /** Traffic candidates the builder turned down, with its reason (accepted ones are changes). */
  declined: z.array(z.object({ query: z.string(), rule: z.enum(ROTATION_RULES), reason: z.string() })),
  decided_at: z.string().nullable().default(null),
  decided_by: z.string().nullable().default(null),
});
export type RotationProposal = z.infer<typeof RotationProposalSchema>;

/** The last time the schedule looked, and what it did: a skipped rotation is shown, never silent. */
export const RotationCheckSchema = z.object({
  at: z.string(),
  outcome: z.enum(['proposed', 'not-due', 'skipped-incident', 'skipped-unknown-incidents', 'failed']),
  detail: z.string(),
});
export type RotationCheck = z.infer<typeof RotationCheckSchema>;

const ProposalFileSchema = z.object({
  proposals: z.array(RotationProposalSchema),
  last_check: RotationCheckSchema.nullable().default(null),
});
type ProposalFile = z.infer<typeof ProposalFileSchema>;

/** Proposals kept in the file; older decided ones are dropped. */
const KEEP = 24;

export function newProposalId(now: Date): string {
  return `rot-${now.getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class ProposalFileError extends Error {
  constructor(path: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = 'ProposalFileError';
  }
}

/**
 * The proposals, kept as JSON next to the probe file they change (the probe set is a file too).
 * Written atomically (temp file + rename); one writer, the sentinel, so no lock is needed.
 */
export class ProposalStore {
  constructor(readonly path: string) {}

  async read(): Promise<ProposalFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { proposals: [], last_check: null };
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ProposalFileError(this.path, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = ProposalFileSchema.safeParse(value);
    if (!parsed.success)
      throw new ProposalFileError(this.path, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return parsed.data;
  }

  async list(): Promise<RotationProposal[]> {
    return (await this.read()).proposals;
  }

  async get(id: string): Promise<RotationProposal | undefined> {
    return (await this.list()).find((p) => p.proposal_id === id);
  }

  async lastCheck(): Promise<RotationCheck | null> {
    return (await this.read()).last_check;
  }

  /** Adds a pending proposal; an earlier pending one is superseded (only the newest can be accepted). */
  async add(proposal: RotationProposal, check: RotationCheck): Promise<void> {
    const file = await this.read();
    const earlier = file.proposals.map((p) => (p.state === 'pending' ? { ...p, state: 'superseded' as const } : p));
    await this.write({ proposals: [...earlier, proposal].slice(-KEEP), last_check: check });
  }

  async update(proposal: RotationProposal): Promise<void> {
    const file = await this.read();
    await this.write({ ...file, proposals: file.proposals.map((p) => (p.proposal_id === proposal.proposal_id ? proposal : p)) });
  }

  async recordCheck(check: RotationCheck): Promise<void> {
    await this.write({ ...(await this.read()), last_check: check });
  }

  private async write(file: ProposalFile): Promise<void> {
    const temp = `${this.path}.tmp-${process.pid}`;
    await writeFile(temp, JSON.stringify(file, null, 2) + '\n');
    await rename(temp, this.path);
  }
}
