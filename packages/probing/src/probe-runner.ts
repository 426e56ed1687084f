import { createHash, randomUUID } from 'node:crypto';
import { SpanStatusCode, context, type Tracer } from '@opentelemetry/api';
import { inSpan } from '@rag-immune/worker-runtime';
import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  ExponentialBackoff,
  IsolatedCircuitError,
  circuitBreaker,
  handleWhen,
  retry,
  wrap,
  type IPolicy,
} from 'cockatiel';
import { ContractViolationError, RagHttpError, RagUnreachableError, type PartialQueryResponse } from '@rag-immune/rag-contract';
import { newProbeTraceContext, probeTraceHeaders } from '@rag-immune/traces';
import {
  answerHash,
  eventEnvelope,
  type FcsStatus,
  type ProbeObservation,
  type ProbeResult,
  type RagCallStatus,
} from '@rag-immune/contracts';
import type { GoldenProbe } from './golden-probe.ts';
import type { FactConsistencyPort, FcsVerdict, RagPort } from './ports.ts';
import { intentCoverage } from './signals/intent-coverage.ts';
import { knowledgeFreshness } from './signals/knowledge-freshness.ts';
import {
  answerAndLatencyDefaults,
  compareWithBaseline,
  type AnomalyThresholds,
  type SampledScores,
} from './signals/baseline-comparison.ts';
import {
  alteredChunks,
  answerAgreement,
  ungroundedFacts,
  sameEvidence,
  factReplaced,
  newerOnlineChunks,
  type AnswerComparison,
} from './signals/answer-agreement.ts';
import { CallHealthWindow, type CallHealthComparison } from './signals/call-health.ts';
import {
  MAX_FEED_LOOKUPS,
  checkAgainstFeed,
  type FreshnessLookup,
  type NewerKnowledgeWithoutLookup,
} from './signals/knowledge-feed-check.ts';
import { attributionCheck } from './signals/attribution.ts';
import { mannWhitneyLessNull, smallestPossibleP, type NullDistribution } from './signals/sample-test.ts';
import { factFrequencyTest } from './signals/fact-frequency-test.ts';
import { PooledEvidence, POOLED_SIGNALS as POOLED_SIGNALS_LIST } from './signals/pooled-test.ts';
import { KnowledgePooledEvidence, withPoolAlarms } from './signals/knowledge-pool.ts';
import { AdaptiveSampling } from './signals/adaptive-sampling.ts';
import { answersAreConsistent, baselineFactsLossP, modalAnswerIndex, onlineAnswersEmpty } from './signals/sample-consensus.ts';
import type { DebugCapture } from './debug-capture.ts';
import { answerSide, answeredAt, citingSide, evidence, freshnessDocuments, retrievedDocuments } from './observed-response.ts';

export interface ProbeRunnerOptions {
  online: RagPort;
  baseline: RagPort;
  fcs: FactConsistencyPort;
  tracer: Tracer;
  thresholds: AnomalyThresholds;
  sourceTrust: Readonly<Record<string, number>>;
  callTimeoutMs: number;
  /** Attempts per RAG call, first included; only timeouts, network errors and 5xx are retried. */
  callAttempts: number;
  version: string;
  debug?: DebugCapture;
  /**
   * Signs each call's probe mark (`rag-immune=probe:<issued>:<mac>`, PROBE_MARK_KEY) so the trace
   * intake files the RAG's spans of it as a probe's only when the mark verifies. Absent: the
   * unsigned mark, which an intake without the key trusts (development).
   */
  probeMark?: { member(traceId: string): string };
  /**
   * Most time one side of a probe may take, retries included (default: every attempt's timeout
   * plus backoff, as before). A hung RAG then costs each probe at most this, not attempts x timeout.
   */
  probeDeadlineMs?: number;
  /**
   * After this many timeouts in a row on one side, its calls fail at once as `circuit_open` for
   * `halfOpenAfterMs` (default: the call timeout), then one call tries again (default 2). Without
   * it a hung RAG holds every concurrency slot for a whole timeout per probe and starves the round.
   */
  breakerTimeouts?: number;
  halfOpenAfterMs?: number;
  /** Recent calls per side behind the latency p95 and timeout-rate signals (default 50). */
  callWindow?: number;
  /**
   * Calls per side per run (default 1: one online answer against one baseline answer). Above 1, for
   * a RAG whose LLM samples: each side is queried this many times in turn, fcs_drop and ic_drop
   * compare the medians and fire only when a one-sided exact Mann–Whitney test of online against
   * baseline gives p < sampleAlpha, and the answers are compared by their most frequent key facts,
   * not at all when the baseline's own samples mostly disagree. Costs this many times the RAG calls.
   */
  samplesPerProbe?: number;
  /** Significance level of the sampled test (default 0.01); 1 / C(2k, k) must be below it. */
  sampleAlpha?: number;
  /**
   * Sampled mode only (samplesPerProbe >= 2): pool the evidence over each probe's runs
   * (signals/pooled-test.ts) instead of testing each run alone, and spend more calls on a probe
   * whose evidence leans towards a change (signals/adaptive-sampling.ts). The runner then keeps
   * per-probe state in memory. Absent: every run is judged on its own, as before.
   */
  pooled?: PooledTestOptions;
  /**
   * Online knowledge newer than the baseline when the online RAG serves no freshness lookup:
   * `update` (default) or `unverified` (listed as unpublished: its adapter declares that every
   * intended change comes with a baseline refresh). See signals/knowledge-feed-check.ts.
   */
  newerKnowledgeWithoutLookup?: NewerKnowledgeWithoutLookup;
}

export interface PooledTestOptions {
  /** Per-probe level: expected clean runs of a probe between false anomalies at least 1 / alpha. */
  alpha: number;
  /** Calls a side while a probe's evidence leans towards a change (the per-run cap; default samplesPerProbe: not adaptive). */
  maxSamples?: number;
  /** Share of the alarm threshold at which the evidence leans (default 0.01). */
  leanFraction?: number;
  /** Most RAG calls in any hour (both sides, all probes) before doubtful runs stop escalating; none when absent. */
  callsPerHour?: number;
  /** Probes whose evidence is kept (least recently run forgotten first; default 10,000). */
  maxProbes?: number;
  /**
   * Also pool across the probes on the same knowledge (signals/knowledge-pool.ts): every run feeds
   * one detector per signal for each knowledge id its probe expects; a pool's alarm raises the
   * signal on the run that crossed, as the probe's own detector would. Absent: per probe only.
   */
  acrossProbes?: { alpha: number; minProbes?: number };
}

export const DEFAULT_SAMPLE_ALPHA = 0.01;

/**
 * Why a sampled-mode setting cannot work, or null. With k calls a side the exact test's p is never
 * below 1 / C(2k, k): an alpha at or under it would silence fcs_drop and ic_drop altogether.
 */
export function sampledModeProblem(samples: number, alpha: number, pooled = false): string | null {
  if (!Number.isInteger(samples) || samples < 1) return `samples per probe must be an integer >= 1, got ${samples}`;
  if (!(alpha > 0 && alpha < 1)) return `sample alpha must be in (0, 1), got ${alpha}`;
  // Pooled, the level is reached over several runs: one run's smallest p does not bound it.
  if (pooled && samples < 2) return `the pooled test needs at least 2 samples a side, got ${samples}`;
  if (!pooled && samples > 1 && smallestPossibleP(samples, samples) >= alpha)
    return `${samples} samples a side can never reach p < ${alpha} (smallest possible p ${smallestPossibleP(samples, samples).toPrecision(3)}): use more samples or a larger alpha`;
  return null;
}

/** The FCS of one answer, or why it has none: never a thrown run, never a fake score. */
interface FcsOutcome {
  status: FcsStatus;
  score: number | null;
  truncated: boolean;
}

/** What one side's call produced, before it is turned into a ProbeObservation. */
interface SideOutcome {
  observation: ProbeObservation;
  fcs?: FcsOutcome;
  response?: PartialQueryResponse;
  /** When the answer arrived (epoch ms): the knowledge time of a RAG that names none. */
  receivedAt?: number;
}

function retryable(error: unknown): boolean {
  if (error instanceof RagUnreachableError) return true;
  return error instanceof RagHttpError && error.status >= 500;
}

const isTimeout = (error: unknown) => error instanceof RagUnreachableError && error.reason === 'timeout';

function failedObservation(error: unknown, latencyMs: number, deadlinePassed = false): ProbeObservation {
  let status: RagCallStatus = 'unknown';
  let httpStatus: number | null = null;
  let message = error instanceof Error ? error.message : String(error);
  if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
    status = 'circuit_open';
    message = 'not called: this RAG timed out repeatedly just before; its circuit is open';
  } else if (deadlinePassed) {
    status = 'timeout';
    message = `probe deadline passed after ${Math.round(latencyMs)} ms (${message})`;
  } else if (error instanceof RagUnreachableError) status = error.reason === 'timeout' ? 'timeout' : 'connection_error';
  else if (error instanceof RagHttpError) {
    status = 'http_error';
    httpStatus = error.status;
  } else if (error instanceof ContractViolationError) status = 'invalid_response';
  return {
    call_status: status,
    http_status: httpStatus,
    error_message: message,
    trace_id: null,
    traceparent: null,
    latency_ms: latencyMs,
    signals: null,
    retrieved_documents: [],
    component_versions: { embedder: null, reranker: null, generator: null },
    answer_hash: null,
  };
}

/**
 * Runs one golden probe: queries the online and the baseline RAG concurrently, scores each answer
 * (FCS, IC, KF), compares them and returns the ProbeResult to publish. A failed call yields an
 * error-typed observation with no signals: never a fake score.
 */
export class ProbeRunner {
  private readonly policies: Record<'online' | 'baseline', IPolicy>;
  private readonly windows: Record<'online' | 'baseline', CallHealthWindow>;
  private readonly pooled?: { evidence: PooledEvidence; sampling: AdaptiveSampling; knowledge?: KnowledgePooledEvidence };

  constructor(private readonly options: ProbeRunnerOptions) {
    const pooled = options.pooled;
    const problem = sampledModeProblem(
      options.samplesPerProbe ?? 1,
      pooled?.alpha ?? options.sampleAlpha ?? DEFAULT_SAMPLE_ALPHA,
      !!pooled,
    );
    if (problem !== null) throw new RangeError(problem);
    if (pooled !== undefined) {
      const base = options.samplesPerProbe!;
      this.pooled = {
        evidence: new PooledEvidence({ alpha: pooled.alpha, ...(pooled.maxProbes ? { maxProbes: pooled.maxProbes } : {}) }),
        sampling: new AdaptiveSampling({
          base,
          max: pooled.maxSamples ?? base,
          ...(pooled.leanFraction !== undefined ? { leanFraction: pooled.leanFraction } : {}),
          ...(pooled.callsPerHour !== undefined ? { callsPerHour: pooled.callsPerHour } : {}),
        }),
        ...(pooled.acrossProbes
          ? {
              knowledge: new KnowledgePooledEvidence({
                ...pooled.acrossProbes,
                ...(pooled.maxProbes ? { maxKnowledge: pooled.maxProbes } : {}),
              }),
            }
          : {}),
      };
    }
    const policy = () =>
      wrap(
        retry(handleWhen(retryable), {
          maxAttempts: options.callAttempts - 1,
          backoff: new ExponentialBackoff({ initialDelay: 200, maxDelay: 2000 }),
        }),
        circuitBreaker(handleWhen(isTimeout), {
          halfOpenAfter: options.halfOpenAfterMs ?? options.callTimeoutMs,
          breaker: new ConsecutiveBreaker(options.breakerTimeouts ?? 2),
        }),
      );
    this.policies = { online: policy(), baseline: policy() };
    this.windows = { online: new CallHealthWindow(options.callWindow), baseline: new CallHealthWindow(options.callWindow) };
  }

  private get deadlineMs(): number {
    const { callTimeoutMs, callAttempts } = this.options;
    return this.options.probeDeadlineMs ?? callTimeoutMs * callAttempts + 2000 * (callAttempts - 1);
  }

  async run(probe: GoldenProbe): Promise<ProbeResult> {
    const correlationId = randomUUID();
    const queryHash = createHash('sha256').update(probe.query).digest('hex');
    // The probe's span: an error is recorded on it and rethrown, and it always ends (worker-runtime's inSpan).
    return inSpan(
      this.options.tracer,
      'sentinel.probe.start',
      { probe_id: probe.id, probe_version: probe.version, query_hash: queryHash, correlation_id: correlationId },
      context.active(),
      async (span) => {
        const pooled = this.pooled;
        // Pooled: as many calls as this probe's evidence so far asks for (decided before the run).
        const k = pooled ? pooled.sampling.samplesFor(this.leaning(probe), pooled.evidence.threshold) : (this.options.samplesPerProbe ?? 1);
        const [onlineSamples, baselineSamples] = await Promise.all([
          this.observeSamples('online', this.options.online, probe, correlationId, k),
          this.observeSamples('baseline', this.options.baseline, probe, correlationId, k),
        ]);
        const online = representative(onlineSamples);
        const baseline = representative(baselineSamples);
        // One call a side: the answers are compared as they are. Sampled: only when the baseline
        // mostly says the same thing (otherwise its own spread makes any difference meaningless) and
        // the online samples state it significantly less often (otherwise the modal facts differ by chance).
        const scores = k > 1 ? this.sampledScores(k, onlineSamples, baselineSamples) : undefined;
        const ragCalls = onlineSamples.length + baselineSamples.length;
        const pooledRun =
          pooled && scores
            ? pooled.evidence.observe(probe.id, {
                fcs: lessTest(scores.fcs),
                ic: lessTest(scores.ic),
                facts: factFrequencyTest(answersOf(onlineSamples), answersOf(baselineSamples)),
              })
            : undefined;
        // Across probes: this run's e-values also feed the pools of the knowledge the probe expects,
        // at once (no commit: concurrent runs on one knowledge id must not overwrite each other).
        const knowledgePools =
          pooledRun && pooled!.knowledge
            ? pooled!.knowledge.observe(probe.id, probe.expected_sources, {
                fcs: pooledRun.verdict.fcs.e,
                ic: pooledRun.verdict.ic.e,
                facts: pooledRun.verdict.facts.e,
              })
            : [];
        const pooledVerdict = pooledRun ? withPoolAlarms(pooledRun.verdict, knowledgePools) : undefined;
        // Pooled, the facts are compared once their detector says the answers differ run after run.
        const compareFacts = k === 1 || (pooledVerdict ? pooledVerdict.facts.alarm : this.answersDiffer(onlineSamples, baselineSamples));
        const answers = await this.compareAnswers(probe, online, baseline, compareFacts);
        // Sampled: one empty sample (the representative's) is no evidence; the samples' share is.
        if (answers && k > 1)
          answers.online_answer_empty = onlineAnswersEmpty(
            answersOf(onlineSamples),
            answersOf(baselineSamples),
            this.options.sampleAlpha ?? DEFAULT_SAMPLE_ALPHA,
          );
        const calls = this.callHealth(onlineSamples, baselineSamples, online.observation);
        const verdict = compareWithBaseline(online.observation, baseline.observation, this.options.thresholds, {
          ...(answers ? { answers } : {}),
          calls,
          ...(scores ? { samples: scores } : {}),
          ...(pooledVerdict ? { pooled: pooledVerdict } : {}),
        });
        if (pooledRun) {
          pooledRun.commit();
          pooled!.sampling.record(ragCalls);
        }
        const pv = pooledRun?.verdict;
        span.setAttributes({
          anomaly: verdict.anomaly,
          severity: verdict.severity,
          anomaly_signals: verdict.signals.join(','),
          ...(k > 1 ? { samples: k } : {}),
          ...(pv ? { pooled_fcs: pv.fcs.statistic, pooled_ic: pv.ic.statistic, pooled_facts: pv.facts.statistic } : {}),
        });
        return {
          ...eventEnvelope('sentinel', this.options.version),
          correlation_id: correlationId,
          probe_id: probe.id,
          probe_version: probe.version,
          query: probe.query,
          query_hash: queryHash,
          online: online.observation,
          baseline: baseline.observation,
          comparison: {
            samples: null,
            fcs_sample_test_p: null,
            ic_sample_test_p: null,
            online_fcs_median: null,
            baseline_fcs_median: null,
            online_ic_median: null,
            baseline_ic_median: null,
            ...verdict.comparison,
            pooled_test: pv
              ? {
                  level: pv.alpha,
                  threshold: pv.threshold,
                  fcs_e: pv.fcs.e,
                  fcs_statistic: pv.fcs.statistic,
                  ic_e: pv.ic.e,
                  ic_statistic: pv.ic.statistic,
                  facts_p: pv.facts.p,
                  facts_e: pv.facts.e,
                  facts_statistic: pv.facts.statistic,
                  rag_calls: ragCalls,
                  knowledge_pools: knowledgePools.map((pool) => ({
                    knowledge_id: pool.knowledgeId,
                    level: pool.alpha,
                    threshold: pool.threshold,
                    probe_ids: pool.probeIds,
                    probes: pool.probes,
                    runs: pool.runs,
                    fcs_statistic: pool.statistic.fcs,
                    ic_statistic: pool.statistic.ic,
                    facts_statistic: pool.statistic.facts,
                    alarmed: POOLED_SIGNALS_LIST.filter((signal) => pool.alarm[signal]),
                  })),
                }
              : null,
          },
          anomaly: verdict.anomaly,
          severity: verdict.severity,
          anomaly_signals: verdict.signals,
          // A traffic replay (the sentinel's traffic watcher) relabels its results after the run.
          origin: 'golden' as const,
          segment: null,
        };
      },
    );
  }

  /**
   * How far the evidence on this probe leans, on the scale of its own threshold: its own detectors'
   * or, pooled across probes, its knowledge pools' (each relative to its own threshold), whichever
   * leans more. A probe whose knowledge is in doubt from other probes' runs is then sampled more too.
   */
  private leaning(probe: GoldenProbe): number {
    const { evidence, knowledge } = this.pooled!;
    const own = evidence.leaning(probe.id);
    if (knowledge === undefined) return own;
    return Math.max(own, (knowledge.leaning(probe.expected_sources) / knowledge.threshold) * evidence.threshold);
  }

  /**
   * k calls to one side, one after the other (the RAG sees the load of one probe at a time, as with
   * one call). A failed call ends the side's sampling: it is reported as today, and a hung RAG is
   * not waited on k times.
   */
  private async observeSamples(
    side: 'online' | 'baseline',
    rag: RagPort,
    probe: GoldenProbe,
    correlationId: string,
    k: number,
  ): Promise<SideOutcome[]> {
    const samples: SideOutcome[] = [];
    for (let i = 0; i < k; i++) {
      const sample = await this.observe(side, rag, probe, correlationId);
      samples.push(sample);
      if (sample.observation.call_status !== 'ok') break;
    }
    return samples;
  }

  /** Sampled: the baseline is self-consistent and the online samples lost its facts beyond chance (p < alpha). */
  private answersDiffer(online: SideOutcome[], baseline: SideOutcome[]): boolean {
    if (!baselineIsConsistent(baseline)) return false;
    const answers = (samples: SideOutcome[]) => samples.map((s) => s.response?.answer);
    return baselineFactsLossP(answers(online), answers(baseline)) < (this.options.sampleAlpha ?? DEFAULT_SAMPLE_ALPHA);
  }

  private sampledScores(k: number, online: SideOutcome[], baseline: SideOutcome[]): SampledScores {
    const scores = (samples: SideOutcome[], signal: 'fcs' | 'ic') =>
      samples.flatMap((s) =>
        s.observation.call_status === 'ok' && s.observation.signals?.[signal] != null ? [s.observation.signals[signal]] : [],
      );
    return {
      count: k,
      alpha: this.options.sampleAlpha ?? DEFAULT_SAMPLE_ALPHA,
      fcs: { online: scores(online, 'fcs'), baseline: scores(baseline, 'fcs') },
      ic: { online: scores(online, 'ic'), baseline: scores(baseline, 'ic') },
    };
  }

  private async observe(side: 'online' | 'baseline', rag: RagPort, probe: GoldenProbe, correlationId: string): Promise<SideOutcome> {
    const started = performance.now();
    const deadline = AbortSignal.timeout(Math.ceil(this.deadlineMs));
    let response: PartialQueryResponse;
    // A fresh trace context per attempt: a retried call's spans do not mix with the failed attempt's.
    let traced = newProbeTraceContext(this.options.probeMark);
    try {
      response = await this.policies[side].execute(({ signal }) => {
        traced = newProbeTraceContext(this.options.probeMark);
        return rag.query(
          { query: probe.query },
          {
            signal,
            timeoutMs: Math.max(1, Math.ceil(Math.min(this.options.callTimeoutMs, this.deadlineMs - (performance.now() - started)))),
            // The tracestate marks the call as a probe: the trace intake keeps its spans apart from users'.
            headers: probeTraceHeaders(traced),
          },
        );
      }, deadline);
    } catch (error) {
      const observation = failedObservation(error, performance.now() - started, deadline.aborted);
      await this.options.debug?.record({
        side,
        probe_id: probe.id,
        correlation_id: correlationId,
        request: { query: probe.query },
        error: observation.error_message,
      });
      return { observation };
    }
    const latencyMs = performance.now() - started;
    const receivedAt = Date.now();
    await this.options.debug?.record({
      side,
      probe_id: probe.id,
      correlation_id: correlationId,
      request: { query: probe.query },
      response,
    });

    const fcs = await this.scoreFcs(side, probe, response);
    const coverage = intentCoverage(probe.query, response.answer, response.abstained ?? false);
    const freshness = knowledgeFreshness(freshnessDocuments(response.chunks), answeredAt(response, receivedAt), this.options.sourceTrust);
    const observation: ProbeObservation = {
      call_status: 'ok',
      http_status: 200,
      error_message: null,
      trace_id: response.trace_id ?? null,
      traceparent: traced.traceparent,
      // What the identifier checks an intake trace against before it is evidence for this call.
      answer_hash: answerHash(response.answer),
      latency_ms: latencyMs,
      signals: {
        fcs: fcs.score,
        fcs_status: fcs.status,
        fcs_truncated: fcs.truncated,
        ic: coverage.ic,
        kf_as_of: freshness.kf_as_of,
        kf_age_days: freshness.kf_age_days,
      },
      retrieved_documents: retrievedDocuments(response.chunks, this.options.sourceTrust),
      component_versions: {
        embedder: response.models?.embedder ?? null,
        reranker: response.models?.reranker ?? null,
        generator: response.models?.generator ?? null,
      },
    };
    return { observation, fcs, response, receivedAt };
  }

  /** Latency p95s and the online timeout rate over the recent window, every call of this run included. */
  private callHealth(onlineSamples: SideOutcome[], baselineSamples: SideOutcome[], online: ProbeObservation): CallHealthComparison {
    const timedOut = (o: ProbeObservation) => o.call_status === 'timeout' || o.call_status === 'circuit_open';
    for (const [side, samples] of [
      ['online', onlineSamples],
      ['baseline', baselineSamples],
    ] as const)
      for (const { observation } of samples)
        this.windows[side].record({
          latencyMs: observation.latency_ms,
          timedOut: timedOut(observation),
          ok: observation.call_status === 'ok',
        });
    return {
      online_latency_p95_ms: this.windows.online.latencyP95(),
      baseline_latency_p95_ms: this.windows.baseline.latencyP95(),
      online_timeout_rate: this.windows.online.timeoutRate(),
      online_latency_ms: online.latency_ms,
      online_timed_out: timedOut(online),
    };
  }

  /**
   * Compares the two answers when both sides answered. Cross-FCS (each answer against the other
   * side's evidence) costs two scorer calls, so it runs only when the key facts differ: never on a
   * clean round where both sides say the same thing.
   */
  private async compareAnswers(
    probe: GoldenProbe,
    online: SideOutcome,
    baseline: SideOutcome,
    compareFacts: boolean,
  ): Promise<AnswerComparison | undefined> {
    const a = online.response;
    const b = baseline.response;
    if (a === undefined || b === undefined) return undefined;
    const onlineSide = answerSide(a, online.receivedAt ?? Date.now());
    const baselineSide = answerSide(b, baseline.receivedAt ?? Date.now());
    // Not comparing the facts leaves the agreement unknown (null), which disagrees with nothing.
    const agreement = compareFacts ? answerAgreement(a.answer, b.answer) : null;
    // Newer online knowledge is an update only if its feed published it.
    const newer = newerOnlineChunks(onlineSide, baselineSide);
    const feedCheck = await checkAgainstFeed(
      newer,
      this.freshnessLookup(),
      MAX_FEED_LOOKUPS,
      this.options.newerKnowledgeWithoutLookup ?? 'update',
    );
    const comparison: AnswerComparison = {
      answer_agreement: agreement,
      online_answer_vs_baseline_fcs: null,
      baseline_answer_vs_online_fcs: null,
      knowledge_update: newer.length > 0 && (feedCheck?.unpublished.length ?? 0) === 0,
      feed_check: feedCheck,
      attribution: attributionCheck(probe.expected_sources, citingSide(a), citingSide(b)),
      altered_chunks: alteredChunks(onlineSide, baselineSide),
      online_answer_empty: a.answer.trim() === '' && b.answer.trim() !== '',
      online_ungrounded_facts: [],
      baseline_ungrounded_facts: [],
      fact_replaced_on_same_evidence: false,
    };
    const agreementMin = this.options.thresholds.answerAgreementMin ?? answerAndLatencyDefaults.answerAgreementMin;
    if (agreement !== null && agreement < agreementMin) {
      // The question itself is context both answers may repeat ("the latest version of libxml2").
      const onlineTexts = [probe.query, ...a.chunks.map((chunk) => chunk.text)];
      const baselineTexts = [probe.query, ...b.chunks.map((chunk) => chunk.text)];
      comparison.online_ungrounded_facts = ungroundedFacts(a.answer, [...onlineTexts, ...baselineTexts]);
      comparison.baseline_ungrounded_facts = ungroundedFacts(b.answer, baselineTexts);
      comparison.fact_replaced_on_same_evidence = sameEvidence(onlineSide, baselineSide) && factReplaced(a.answer, b.answer);
      comparison.online_answer_vs_baseline_fcs = await this.crossScore(probe, a.answer, [
        ...evidence(b.chunks, 'baseline:'),
        { id: 'baseline:answer', text: b.answer },
      ]);
      comparison.baseline_answer_vs_online_fcs = await this.crossScore(probe, b.answer, evidence(a.chunks, 'online:'));
    }
    return comparison;
  }

  /** The online RAG's freshness lookup, bounded by the call timeout; undefined when its port has none. */
  private freshnessLookup(): FreshnessLookup | undefined {
    const online = this.options.online;
    if (online.knowledgeFreshness === undefined) return undefined;
    return (knowledgeId) => online.knowledgeFreshness!(knowledgeId, { timeoutMs: this.options.callTimeoutMs });
  }

  private async crossScore(probe: GoldenProbe, answer: string, evidence: { id: string; text: string }[]): Promise<number | null> {
    if (evidence.every((e) => e.text.trim() === '')) return null;
    try {
      return (await this.options.fcs.score({ question: probe.query, evidence, answer })).score;
    } catch {
      return null;
    }
  }

  /**
   * FCS of one answer against its own evidence. An empty or whitespace answer (the contract allows
   * it) and a scorer that throws are results with a typed status, never a lost probe run.
   */
  private scoreFcs(side: 'online' | 'baseline', probe: GoldenProbe, response: PartialQueryResponse): Promise<FcsOutcome> {
    if (response.answer.trim() === '') return Promise.resolve({ status: 'empty_answer', score: null, truncated: false });
    return this.options.tracer.startActiveSpan('fcs.score', { attributes: { probe_id: probe.id, side } }, async (span) => {
      try {
        const verdict: FcsVerdict = await this.options.fcs.score({
          question: probe.query,
          evidence: evidence(response.chunks),
          answer: response.answer,
        });
        span.setAttributes({
          fcs_status: verdict.status,
          truncated: verdict.truncated,
          // The passages behind the score, so an engineer sees in the trace why it fell.
          evidence_snippets: JSON.stringify(verdict.evidence_snippets),
          ...(verdict.score === null ? {} : { score: verdict.score }),
        });
        const scored = verdict.status === 'scored' && verdict.score !== null && Number.isFinite(verdict.score);
        // A "scored" verdict without a finite score is a scorer fault, reported as such.
        const status: FcsStatus = scored ? 'scored' : verdict.status === 'scored' ? 'scorer_error' : verdict.status;
        return { status, score: scored ? verdict.score : null, truncated: verdict.truncated };
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'FCS scorer failed' });
        return { status: 'scorer_error' as const, score: null, truncated: false };
      } finally {
        span.end();
      }
    });
  }
}

/**
 * The sample a side is reported and compared by: a failed call if any (the side failed, as with one
 * call), else the first sample stating the side's most frequent key facts (self-consistency).
 */
function representative(samples: readonly SideOutcome[]): SideOutcome {
  const failed = samples.find((s) => s.observation.call_status !== 'ok');
  if (failed !== undefined || samples.length === 1) return failed ?? samples[0]!;
  return samples[modalAnswerIndex(samples.map((s) => s.response?.answer))]!;
}

/** One-sided exact test of "online scores lower" with its null distribution; null when a side has no score. */
function lessTest(scores: { online: readonly number[]; baseline: readonly number[] }): NullDistribution | null {
  return scores.online.length === 0 || scores.baseline.length === 0 ? null : mannWhitneyLessNull(scores.online, scores.baseline);
}

/** The answers of a side's samples (undefined for a failed call). */
const answersOf = (samples: readonly SideOutcome[]) => samples.map((s) => s.response?.answer);

/** More than half of the baseline's samples state the same key facts. */
function baselineIsConsistent(samples: readonly SideOutcome[]): boolean {
  return answersAreConsistent(samples.map((s) => s.response?.answer));
}
