import { createHash } from 'node:crypto';
import {
  reportForFinding,
  type IncidentOutcome,
  type IndexDiffEvidence,
  type RepairAction,
  type RootCauseReport,
} from '@rag-immune/contracts';

export type CaseStatus = 'active' | 'superseded' | 'archived';
/** A case's outcome is its incident's, in the vocabulary every worker shares (avro/common/IncidentOutcome.avsc). */
export type CaseOutcome = IncidentOutcome;
export type StepStatus = RepairAction['status'];

/** One claim of the report as memory keeps it: the measured move, without ledger ids. */
export interface CaseClaim {
  kind: string;
  metric: string;
  subject: string;
  observed: number;
  baseline: number | null;
}

export interface CaseSignature {
  report_event_id: string;
  report_revision: number;
  root_cause: RootCauseReport['root_cause'];
  affected_component: RootCauseReport['affected_component'];
  confidence: number;
  claims: CaseClaim[];
  affected_knowledge_ids: string[];
  window_start: number;
  /**
   * What changed in the online index, as the report said (issue 39): kept with the case for the
   * engineer who reads it later. Evidence, not symptom: it stays out of the signature text and key,
   * so cases recorded before it match the same. Absent on cases recorded before it; null: none read.
   */
  index_diff?: IndexDiffEvidence | null;
}

/** One repair (all lifecycle steps sharing an action_id) folded to its latest state. */
export interface CaseAction {
  action_id: string;
  intent: RepairAction['intent'];
  tool: string;
  tool_version: string;
  status: StepStatus;
  attempt: number;
  first_at: number;
  last_at: number;
  /** The occurred_at of the event that set `status` (decides between steps of equal rank). */
  status_at: number;
  recovered: boolean | null;
  failure_reason: string | null;
  verification: RepairAction['verification'];
}

/** A change of the metadata card, kept forever: memory never changes a case silently. */
export interface CardTransition {
  field: 'status' | 'importance' | 'duplicate_count';
  from: string | number;
  to: string | number;
  reason: string;
  at: string;
  related_case_id?: string;
}

/** The metadata "identity card" of seed 004 §4.1. Timestamps are UTC ISO strings. */
export interface CaseCard {
  status: CaseStatus;
  importance: number;
  access_count: number;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  source_event_ids: string[];
  /** How many near-identical cases this one stands for (compaction adds theirs). */
  duplicate_count: number;
  superseded_by: string | null;
  history: CardTransition[];
}

/** One incident as memory remembers it: what broke, what was tried in order, how it ended. */
export interface HealingCase {
  case_id: string;
  incident_id: string;
  environment: string;
  signature: CaseSignature | null;
  /** Words for BM25 and the embedder; numbers turned into coarse moves so near cases read alike. */
  signature_text: string;
  /** Hash of the coarse signature: equal keys are "the same signature" for conflicts and compaction. */
  signature_key: string;
  actions: CaseAction[];
  outcome: CaseOutcome;
  /** Intents in the order tried. */
  intents: RepairAction['intent'][];
  /** The intent that recovered the incident, if any. */
  recovered_by: RepairAction['intent'] | null;
  incident_at: number;
  recovered_at: number | null;
  time_to_recovery_ms: number | null;
  card: CaseCard;
}

/**
 * A stable UUID (Qdrant point ids are UUIDs or integers) for an incident's case; with `cause`, the
 * case of one cause of an incident that had several (issue 30: one case per cause).
 */
export function caseIdOf(environment: string, incidentId: string, cause: string | null = null): string {
  const material = `healing-case\u0000${environment}\u0000${incidentId}${cause === null ? '' : `\u0000${cause}`}`;
  const hex = createHash('sha256').update(material).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function emptyCase(incidentId: string, environment: string, now: Date, cause: string | null = null): HealingCase {
  const at = now.toISOString();
  const healingCase: HealingCase = {
    case_id: caseIdOf(environment, incidentId, cause),
    incident_id: incidentId,
    environment,
    signature: null,
    signature_text: '',
    signature_key: '',
    actions: [],
    outcome: 'open',
    intents: [],
    recovered_by: null,
    incident_at: now.getTime(),
    recovered_at: null,
    time_to_recovery_ms: null,
    card: {
      status: 'active',
      importance: 1,
      access_count: 0,
      created_at: at,
      updated_at: at,
      last_used_at: null,
      source_event_ids: [],
      duplicate_count: 1,
      superseded_by: null,
      history: [],
    },
  };
  return derive(healingCase);
}

export type CaseEvent = { kind: 'report'; event: RootCauseReport } | { kind: 'action'; event: RepairAction };

/**
 * Which case an event belongs to. A report naming several causes (findings) is one report per cause,
 * each with that finding's cause, claims and knowledge, filed under the cause's own case; a repair
 * the effector ran for one cause of several names it (argument `finding`) and joins that case.
 * Everything else (one cause, or an abstention) is the incident's case, as before findings.
 */
export function caseEventsOf(input: CaseEvent): { cause: string | null; input: CaseEvent }[] {
  if (input.kind === 'action') return [{ cause: input.event.arguments.finding ?? null, input }];
  const report = input.event;
  const findings = report.findings ?? [];
  if (findings.length < 2) return [{ cause: null, input }];
  return findings.map((finding) => ({
    cause: finding.root_cause,
    input: {
      kind: 'report' as const,
      event: reportForFinding(report, finding),
    },
  }));
}

/**
 * Folds one event into a case. Idempotent (an event already applied changes nothing) and
 * order-independent for the parts that matter: an older report revision never replaces a newer one,
 * and a late "started" never undoes a "succeeded". Returns null when the event was already applied.
 */
export function applyEvent(current: HealingCase, input: CaseEvent, now: Date): HealingCase | null {
  if (input.event.incident_id !== current.incident_id) {
    throw new Error(`event ${input.event.event_id} is for incident ${input.event.incident_id}, not ${current.incident_id}`);
  }
  if (current.card.source_event_ids.includes(input.event.event_id)) return null;
  const next: HealingCase = structuredClone(current);
  next.card.source_event_ids.push(input.event.event_id);
  next.card.updated_at = now.toISOString();
  if (input.kind === 'report') applyReport(next, input.event);
  else applyAction(next, input.event);
  return derive(next);
}

function applyReport(target: HealingCase, report: RootCauseReport): void {
  const current = target.signature;
  const newer =
    current === null ||
    report.report_revision > current.report_revision ||
    (report.report_revision === current.report_revision && report.event_id > current.report_event_id);
  if (!newer) return;
  target.signature = {
    report_event_id: report.event_id,
    report_revision: report.report_revision,
    root_cause: report.root_cause,
    affected_component: report.affected_component,
    confidence: report.confidence,
    claims: report.claims.map((c) => ({ kind: c.kind, metric: c.metric, subject: c.subject, observed: c.observed, baseline: c.baseline })),
    affected_knowledge_ids: [...new Set(report.affected_knowledge_ids)].sort(),
    window_start: report.window_start,
    index_diff: report.index_diff ?? null,
  };
}

/** Lifecycle rank: a step only replaces one of lower rank (or equal rank and later time). */
const STATUS_RANK: Record<StepStatus, number> = {
  unknown: -1,
  planned: 0,
  started: 1,
  succeeded: 2,
  failed: 2,
  escalated: 2,
  rolled_back: 3,
};

function applyAction(target: HealingCase, action: RepairAction): void {
  const existing = target.actions.find((a) => a.action_id === action.action_id);
  if (existing === undefined) {
    target.actions.push({
      action_id: action.action_id,
      intent: action.intent,
      tool: action.tool,
      tool_version: action.tool_version,
      status: action.status,
      attempt: action.attempt,
      first_at: action.occurred_at,
      last_at: action.occurred_at,
      status_at: action.occurred_at,
      recovered: action.verification?.recovered ?? null,
      failure_reason: action.failure?.reason ?? null,
      verification: action.verification,
    });
  } else {
    existing.first_at = Math.min(existing.first_at, action.occurred_at);
    existing.last_at = Math.max(existing.last_at, action.occurred_at);
    const rank = STATUS_RANK[action.status];
    const currentRank = STATUS_RANK[existing.status];
    if (rank > currentRank || (rank === currentRank && action.occurred_at > existing.status_at)) {
      existing.status = action.status;
      existing.status_at = action.occurred_at;
      existing.attempt = Math.max(existing.attempt, action.attempt);
      if (action.verification !== null) {
        existing.verification = action.verification;
        existing.recovered = action.verification.recovered;
      }
      if (action.failure !== null) existing.failure_reason = action.failure.reason;
    }
  }
  target.actions.sort((a, b) => a.first_at - b.first_at || a.attempt - b.attempt || a.action_id.localeCompare(b.action_id));
}

/** Whether a step healed, failed, or has not finished. */
export function stepResult(action: CaseAction): 'success' | 'failure' | 'pending' {
  if (action.status === 'succeeded') return action.recovered === false ? 'failure' : 'success';
  if (action.status === 'failed' || action.status === 'rolled_back' || action.status === 'escalated') return 'failure';
  return 'pending';
}

/** Recomputes everything that follows from the signature and the actions. */
export function derive(target: HealingCase): HealingCase {
  const success = target.actions.find((a) => stepResult(a) === 'success');
  const escalated = target.actions.some((a) => a.status === 'escalated' || a.intent === 'escalate_to_human');
  const allDone = target.actions.length > 0 && target.actions.every((a) => stepResult(a) !== 'pending');
  target.outcome = success ? 'recovered' : escalated ? 'escalated' : allDone ? 'failed' : 'open';
  target.intents = target.actions.map((a) => a.intent);
  target.recovered_by = success?.intent ?? null;
  const times = target.actions.map((a) => a.first_at);
  if (target.signature) times.push(target.signature.window_start);
  target.incident_at = times.length > 0 ? Math.min(...times) : target.incident_at;
  target.recovered_at = success?.status_at ?? null;
  target.time_to_recovery_ms = target.recovered_at === null ? null : Math.max(0, target.recovered_at - target.incident_at);
  target.signature_text = signatureText(target.signature);
  target.signature_key = signatureKey(target.environment, target.signature);
  return target;
}

/** A coarse word for how a metric moved: near moves read the same, so near cases embed alike. */
export function moveWord(observed: number, baseline: number | null): string {
  if (baseline === null) return observed === 0 ? 'zero' : 'observed';
  const delta = observed - baseline;
  const scale = Math.max(Math.abs(baseline), 1e-9);
  const relative = delta / scale;
  if (Math.abs(delta) < 1e-9 || Math.abs(relative) < 0.05) return 'unchanged';
  if (relative <= -0.5) return 'collapsed';
  if (relative < 0) return 'dropped';
  if (relative >= 1) return 'surged';
  return 'rose';
}

function scopeWord(count: number): string {
  if (count === 0) return 'unscoped';
  if (count <= 3) return 'narrow';
  if (count <= 20) return 'partial';
  return 'wide';
}

const words = (name: string) => name.replaceAll('_', ' ');

/** The text memory embeds and BM25 indexes for a signature. */
export function signatureText(signature: CaseSignature | null): string {
  if (signature === null) return 'no report yet';
  const claims = [...new Set(signature.claims.map((c) => `${words(c.kind)} ${words(c.metric)} ${moveWord(c.observed, c.baseline)}`))]
    .sort()
    .join('; ');
  const scope = scopeWord(signature.affected_knowledge_ids.length);
  const knowledge = signature.affected_knowledge_ids.slice(0, 20).join(' ');
  return [
    `${words(signature.root_cause)} in ${words(signature.affected_component)}`,
    claims === '' ? 'no claims' : claims,
    `${scope} knowledge scope${knowledge === '' ? '' : ` ${knowledge}`}`,
  ].join('. ');
}

/**
 * The text the embedder sees: the symptoms only (claim moves, scope, knowledge). Cause, component
 * and environment are hard filters already; left in, their shared words would make every case of a
 * cause look alike (cosine ~0.99) and the similarity threshold would mean nothing.
 */
export function embeddingText(signature: CaseSignature | null): string {
  if (signature === null) return 'no report yet';
  const claims = [...new Set(signature.claims.map((c) => `${words(c.kind)} ${words(c.metric)} ${moveWord(c.observed, c.baseline)}`))]
    .sort()
    .join('; ');
  const knowledge = signature.affected_knowledge_ids.slice(0, 20).join(' ');
  return `${claims === '' ? 'no claims' : claims}. ${scopeWord(signature.affected_knowledge_ids.length)} knowledge${knowledge === '' ? '' : ` scope ${knowledge}`}`;
}

/** One claim as a symbol: its kind, metric and coarse move. */
function claimSymbol(claim: CaseClaim): string {
  return `${claim.kind}:${claim.metric}:${moveWord(claim.observed, claim.baseline)}`;
}

/** The symptoms of a signature as symbols: each claim's kind, metric and coarse move, once, and the scope's size. */
export function signatureSymptoms(signature: CaseSignature | null): Set<string> {
  if (signature === null) return new Set();
  return new Set([...signature.claims.map(claimSymbol), `scope:${scopeWord(signature.affected_knowledge_ids.length)}`]);
}

/**
 * Jaccard overlap of two signatures' symptoms, in [0, 1]. The embedding of the signature text
 * weighs every word alike, so two incidents on the same documents look alike even when one claim
 * says "the feed is behind" and the other "the index is behind its feed"; this symbolic overlap does not.
 */
export function symptomOverlap(a: CaseSignature | null, b: CaseSignature | null): number {
  const left = signatureSymptoms(a);
  const right = signatureSymptoms(b);
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const symptom of left) if (right.has(symptom)) shared += 1;
  return shared / (left.size + right.size - shared);
}

/** Equal keys mean "the same signature": cause, component, claim moves and scope size. */
export function signatureKey(environment: string, signature: CaseSignature | null): string {
  if (signature === null) return '';
  const claims = [...new Set(signature.claims.map(claimSymbol))].sort();
  const material = [
    environment,
    signature.root_cause,
    signature.affected_component,
    scopeWord(signature.affected_knowledge_ids.length),
    ...claims,
  ];
  return createHash('sha256').update(material.join('\u0000')).digest('hex').slice(0, 32);
}
