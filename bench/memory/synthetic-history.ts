/**
 * A SYNTHETIC case history for bench/memory, used only where no captured history of real loop runs
 * exists (bench/memory/cases/*.jsonl). It is not evidence of how the real loop behaves: it encodes
 * the assumption stated in RESULTS.md that, for two causes, the action that heals depends on the
 * fault's mode and scope (which the report's claims reveal), so that a learner of signature ->
 * action can be compared with cause -> action rules. Deterministic for a seed.
 *
 * Ground truth per fault (mode, scope):
 *   vector-index-corruption perturb|zero        -> rebuild_index_incremental
 *   vector-index-corruption drop, wide (>= 80%) -> refresh_knowledge_source (an incremental rebuild
 *                                                  cannot restore points that are gone)
 *   vector-index-corruption drop, narrower      -> rebuild_index_incremental
 *   reranker-drift                              -> rollback_reranker
 *   knowledge-source-failure stale              -> switch_backup_source
 *   knowledge-source-failure frozen             -> refresh_knowledge_source (the primary stalled; the
 *                                                  backup is as old)
 *   parser-bug merge-sections|boilerplate       -> reparse_documents
 *   generator-inconsistency swap                -> enable_answer_validation_fallback
 *   tokenizer-anomaly lookalike-unicode         -> add_query_rewrite_rule
 * Noise: the effector first tries the rules' intent where it differs from the truth (it fails), 4%
 * of cases heal by an alternative that also works, 5% of cases end escalated with nothing healed.
 */
import { createHash } from 'node:crypto';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { seededRandom } from '@rag-immune/probing';

/** The seeded generator the synthetic history draws from. */
export const prng = seededRandom;

type Claim = RootCauseReport['claims'][number];
type Intent = RepairAction['intent'];

export interface HistoryLine {
  topic: 'reports' | 'actions';
  event: RootCauseReport | RepairAction;
}

const PACKAGES = Array.from(
  { length: 25 },
  (_, i) =>
    `pkg/${['openssl', 'curl', 'bash', 'coreutils', 'python3', 'nginx', 'postgresql', 'git', 'vim', 'systemd', 'zlib', 'libc6', 'perl', 'tar', 'gzip', 'openssh', 'sudo', 'apt', 'dpkg', 'grep', 'sed', 'gawk', 'util-linux', 'tzdata', 'ca-certificates'][i]}`,
);

interface Fault {
  kind: string;
  cause: RootCauseReport['root_cause'];
  component: RootCauseReport['affected_component'];
  modes: string[];
  scoped: boolean;
}

const FAULTS: Fault[] = [
  {
    kind: 'vector-index-corruption',
    cause: 'vector_index_corruption',
    component: 'vector_index',
    modes: ['perturb', 'zero', 'drop'],
    scoped: true,
  },
  { kind: 'reranker-drift', cause: 'reranker_drift', component: 'reranker', modes: ['v2.2-drift'], scoped: false },
  {
    kind: 'knowledge-source-failure',
    cause: 'knowledge_source_failure',
    component: 'knowledge_source',
    modes: ['stale', 'frozen'],
    scoped: true,
  },
  { kind: 'parser-bug', cause: 'parser_bug', component: 'parser', modes: ['merge-sections', 'boilerplate'], scoped: true },
  { kind: 'generator-inconsistency', cause: 'generator_inconsistency', component: 'generator', modes: ['swap'], scoped: true },
  { kind: 'tokenizer-anomaly', cause: 'tokenizer_anomaly', component: 'tokenizer', modes: ['lookalike-unicode'], scoped: false },
];

/** What the rules file picks first for each cause (the effector's first try in the history). */
const RULE_FIRST: Record<string, Intent> = {
  vector_index_corruption: 'rebuild_index_incremental',
  reranker_drift: 'rollback_reranker',
  knowledge_source_failure: 'switch_backup_source',
  parser_bug: 'reparse_documents',
  generator_inconsistency: 'enable_answer_validation_fallback',
  tokenizer_anomaly: 'add_query_rewrite_rule',
};

const ALTERNATIVE: Partial<Record<Intent, Intent>> = {
  switch_backup_source: 'refresh_knowledge_source',
  refresh_knowledge_source: 'switch_backup_source',
  reparse_documents: 'rebuild_index_incremental',
  rebuild_index_incremental: 'reparse_documents',
};

export function truthOf(kind: string, mode: string, fraction: number): Intent {
  switch (kind) {
    case 'vector-index-corruption':
      return mode === 'drop' && fraction >= 0.8 ? 'refresh_knowledge_source' : 'rebuild_index_incremental';
    case 'reranker-drift':
      return 'rollback_reranker';
    case 'knowledge-source-failure':
      return mode === 'frozen' ? 'refresh_knowledge_source' : 'switch_backup_source';
    case 'parser-bug':
      return 'reparse_documents';
    case 'generator-inconsistency':
      return 'enable_answer_validation_fallback';
    default:
      return 'add_query_rewrite_rule';
  }
}

function claimsOf(kind: string, mode: string, r: () => number): Claim[] {
  const c = (k: Claim['kind'], metric: string, observed: number, baseline: number | null): Claim => ({
    claim_id: `c-${metric}`,
    kind: k,
    subject: 'probe',
    metric,
    observed: Math.round(observed * 1000) / 1000,
    baseline,
    evidence_ids: ['ev-synthetic'],
  });
  const jitter = (x: number, spread: number) => x * (1 + (r() - 0.5) * spread);
  switch (`${kind}:${mode}`) {
    case 'vector-index-corruption:perturb':
      return [
        c('retrieval_score_shift', 'top1_retrieval_score', jitter(0.55, 0.2), 0.82),
        c('retrieved_set_change', 'jaccard_top5', jitter(0.6, 0.2), 1),
      ];
    case 'vector-index-corruption:zero':
      return [
        c('retrieval_score_shift', 'top1_retrieval_score', jitter(0.05, 0.5), 0.82),
        c('retrieved_set_change', 'jaccard_top5', jitter(0.1, 0.5), 1),
      ];
    case 'vector-index-corruption:drop':
      return [
        c('retrieved_set_change', 'jaccard_top5', jitter(0.15, 0.5), 1),
        c('retrieved_set_change', 'retrieved_count', jitter(2, 0.4), 5),
      ];
    case 'reranker-drift:v2.2-drift':
      return [
        c('rerank_score_shift', 'top1_rerank_score', jitter(0.4, 0.3), 0.91),
        c('component_version_change', 'reranker_version', 2.2, 2.1),
      ];
    case 'knowledge-source-failure:stale':
      return [c('knowledge_staleness', 'kf_age_days', jitter(880, 0.2), 20), c('answer_fact_mismatch', 'fcs', jitter(0.35, 0.3), 0.9)];
    case 'knowledge-source-failure:frozen':
      return [c('knowledge_staleness', 'kf_age_days', jitter(32, 0.3), 20)];
    case 'parser-bug:merge-sections':
      return [c('chunk_pollution', 'chunk_section_count', jitter(1, 0.2), 4), c('answer_fact_mismatch', 'fcs', jitter(0.4, 0.3), 0.9)];
    case 'parser-bug:boilerplate':
      return [
        c('chunk_pollution', 'boilerplate_ratio', jitter(0.45, 0.3), 0.02),
        c('retrieval_score_shift', 'top1_retrieval_score', jitter(0.6, 0.2), 0.82),
      ];
    case 'generator-inconsistency:swap':
      return [c('answer_fact_mismatch', 'fcs', jitter(0.2, 0.4), 0.92)];
    default:
      return [
        c('query_encoding_anomaly', 'non_ascii_ratio', jitter(0.08, 0.5), 0),
        c('retrieval_score_shift', 'top1_retrieval_score', jitter(0.5, 0.3), 0.8),
      ];
  }
}

const uuid = (text: string) => {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export interface SyntheticOptions {
  cases: number;
  seed: number;
  /** Time of the newest case; cases are spread over `spanDays` before it. */
  now: number;
  spanDays: number;
  /** Draw scopes from this many fixed sets (few distinct texts: fast to embed for the latency store). */
  scopeSets?: number;
}

export function syntheticHistory(options: SyntheticOptions): HistoryLine[] {
  const r = prng(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const fractions = [0.1, 0.25, 0.5, 0.75, 0.8, 1];
  const scopeSets = options.scopeSets
    ? Array.from({ length: options.scopeSets }, () => {
        const f = pick(fractions);
        return {
          f,
          ids: [...PACKAGES]
            .sort(() => r() - 0.5)
            .slice(0, Math.max(1, Math.round(f * PACKAGES.length)))
            .sort(),
        };
      })
    : null;
  const lines: HistoryLine[] = [];
  for (let i = 0; i < options.cases; i++) {
    const fault = pick(FAULTS);
    const mode = pick(fault.modes);
    let fraction = pick(fractions);
    let ids: string[] = [];
    if (fault.scoped) {
      if (scopeSets) {
        const set = pick(scopeSets);
        fraction = set.f;
        ids = set.ids;
      } else {
        ids = [...PACKAGES]
          .sort(() => r() - 0.5)
          .slice(0, Math.max(1, Math.round(fraction * PACKAGES.length)))
          .sort();
      }
    }
    const incident = `syn-${options.seed}-${i}`;
    const at = Math.round(options.now - r() * options.spanDays * 86_400_000);
    const producer = { service: 'synthetic-history', version: '1', instance: 'bench' };
    const reportId = uuid(`${incident}:report`);
    lines.push({
      topic: 'reports',
      event: {
        event_id: reportId,
        incident_id: incident,
        occurred_at: at,
        producer,
        report_revision: 1,
        probe_event_ids: [],
        window_start: at - 60_000,
        window_end: at,
        root_cause: fault.cause,
        affected_component: fault.component,
        confidence: 0.7 + r() * 0.3,
        claims: claimsOf(fault.kind, mode, r),
        open_questions: [],
        affected_probes: [],
        affected_knowledge_ids: ids,
        recommended_intents: [],
        findings: [],
        unexplained_probes: [],
        ledger_head: null,
        index_diff: null,
      } satisfies RootCauseReport,
    });
    const truth = truthOf(fault.kind, mode, fraction);
    const steps: [Intent, boolean][] = [];
    const roll = r();
    if (roll < 0.05) {
      steps.push([RULE_FIRST[fault.cause] as Intent, false], ['escalate_to_human', false]);
    } else {
      const first = RULE_FIRST[fault.cause] as Intent;
      if (first !== truth) steps.push([first, false]);
      const alternative = ALTERNATIVE[truth];
      steps.push([roll > 0.96 && alternative ? alternative : truth, true]);
    }
    steps.forEach(([intent, healed], n) => {
      const actionId = uuid(`${incident}:action:${n}`);
      const t0 = at + (n + 1) * 30_000;
      const base = {
        incident_id: incident,
        producer,
        action_id: actionId,
        report_event_id: reportId,
        intent,
        tool: `tool.${intent}`,
        tool_version: '1',
        arguments: {},
        attempt: n + 1,
        snapshot_id: null,
        reversible: true,
        grant: null,
        failure: null,
        rollback_of_action_id: null,
      };
      lines.push({
        topic: 'actions',
        event: { ...base, event_id: uuid(`${actionId}:started`), occurred_at: t0, status: 'started', verification: null },
      });
      const status = intent === 'escalate_to_human' ? 'escalated' : healed ? 'succeeded' : 'failed';
      lines.push({
        topic: 'actions',
        event: {
          ...base,
          event_id: uuid(`${actionId}:${status}`),
          occurred_at: t0 + 20_000,
          status,
          verification:
            status === 'escalated'
              ? null
              : {
                  probe_ids: ['p'],
                  fcs_before: 0.4,
                  fcs_after: healed ? 0.9 : 0.4,
                  ic_before: null,
                  ic_after: null,
                  kf_age_days_before: null,
                  kf_age_days_after: null,
                  recovered: healed,
                  outcome: 'unknown' as const,
                  healed_probe_ids: [],
                  unhealed_probe_ids: [],
                  worsened_probe_ids: [],
                },
          failure: healed || status === 'escalated' ? null : { reason: 'verification_failed', message: 'probes still degraded' },
        },
      });
    });
  }
  return lines;
}
