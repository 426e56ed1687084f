/**
 * POST /v1/traces, the OTLP/HTTP trace endpoint: `application/x-protobuf` or `application/json`,
 * optionally gzip (decompressed by the body parser, the size limit applying to the decompressed
 * body). A body that does not decode is refused whole with a 400 and nothing is stored; spans with
 * invalid ids are refused one by one (OTLP partial success); spans no mapper reads are dropped and
 * counted. The caller's token says which RAG the spans are (their `service.name` is set to it) and
 * which origins it may post. Each kept span is a probe's (its tracestate carries the sentinel's
 * probe mark, which verifies under PROBE_MARK_KEY when that is set, and the token may post probe
 * spans) or a user's: probe spans go to the probe store as they are; user spans are dropped when
 * user traffic is off for their RAG, else redacted and written to the user store. A forged or stale
 * mark makes a span a user's, redacted like any other. Per caller, a span rate limit (429 with
 * Retry-After); per trace, a cap on stored spans (the excess refused as partial success). Nothing of
 * a span's text is logged. The answer is an ExportTraceServiceResponse in the request's encoding.
 */
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import {
  classifySpan,
  isProbeTraceState,
  redactSpanText,
  type ProbeMarkCheck,
  type ProbeMarkVerifier,
  decodeJsonExport,
  decodeProtobufExport,
  ExportTraceServiceResponse,
  OtlpDecodeError,
  type DecodedExport,
  type SpanRecord,
  type SpanStore,
} from '@rag-immune/traces';
import { HttpRequestError, principalOf } from '@rag-immune/worker-runtime';
import type { Redactor } from '@rag-immune/redaction';
import type { IntakeMetrics } from '../metrics.ts';
import type { IntakeGrant } from '../intake-tokens.ts';
import type { SpanRateLimiter } from '../limits/token-bucket.ts';
import type { TraceSpanCap } from '../limits/trace-span-cap.ts';

const PROTOBUF = 'application/x-protobuf';

/** Where users' spans go, and whether they go anywhere. */
export interface UserTraffic {
  store: SpanStore;
  /** False: every user span is dropped (TRACE_INTAKE_USER_TRAFFIC=off). */
  enabled: boolean;
  /** service.name values whose user spans are dropped. */
  excludedServices: ReadonlySet<string>;
  redactor: Redactor;
}

export interface OtlpRouteOptions {
  /** The probe spans' store (the identifier reads it). */
  store: SpanStore;
  user: UserTraffic;
  metrics: IntakeMetrics;
  logger: Logger;
  maxBodyBytes: number;
  /** The grant of the authenticated caller (principal name → grant); a caller not listed gets `defaultGrant`. */
  grants: ReadonlyMap<string, IntakeGrant>;
  /** The single shared token's (and development mode's) grant. */
  defaultGrant: IntakeGrant;
  /** Null: the unsigned `rag-immune=probe` mark is trusted (no PROBE_MARK_KEY). */
  probeMarks: ProbeMarkVerifier | null;
  rateLimiter: SpanRateLimiter;
  caps: { probe: TraceSpanCap; user: TraceSpanCap };
  now?: () => number;
}

const serviceOf = (span: SpanRecord) => (typeof span.resource['service.name'] === 'string' ? span.resource['service.name'] : '');

/** The RAG is the token's: the spans' own claim is kept beside it, for a reader who wants to see a mismatch. */
function fileUnder(span: SpanRecord, rag: string | null): SpanRecord {
  if (rag === null || serviceOf(span) === rag) return span;
  const claimed = span.resource['service.name'];
  return {
    ...span,
    resource: { ...span.resource, 'service.name': rag, ...(claimed === undefined ? {} : { 'rag_immune.claimed_service.name': claimed }) },
  };
}

interface Kept {
  probe: SpanRecord[];
  user: SpanRecord[];
  /** Spans refused (not merely dropped), with a reason each for the partial-success message. */
  refused: number;
  reasons: Set<string>;
}

/** Whether a span is a probe's: its mark verifies (or, without a key, is there) and the token may post probe spans. */
function isProbe(span: SpanRecord, grant: IntakeGrant, marks: ProbeMarkVerifier | null): { probe: boolean; check: ProbeMarkCheck } {
  const check: ProbeMarkCheck = marks
    ? marks.check(span.trace_state, span.trace_id)
    : isProbeTraceState(span.trace_state)
      ? 'unsigned'
      : 'none';
  const trusted = marks ? check === 'verified' : check === 'unsigned';
  return { probe: trusted && grant.origins.has('probe'), check };
}

/** The spans worth keeping, probe and user apart (user spans redacted), after counting the rest. */
function keep(decoded: DecodedExport, options: OtlpRouteOptions, grant: IntakeGrant): Kept {
  const { user, metrics } = options;
  if (decoded.rejected > 0)
    metrics.spans.inc({ outcome: 'rejected', reason: 'invalid_id', convention: 'none', origin: 'none' }, decoded.rejected);
  const kept: Kept = { probe: [], user: [], refused: 0, reasons: new Set() };
  for (const received of decoded.spans) {
    const span = fileUnder(received, grant.rag);
    const { probe, check } = isProbe(span, grant, options.probeMarks);
    const origin = probe ? 'probe' : 'user';
    if (!probe && check !== 'none') {
      // A mark that does not verify (forged, another trace's, stale) or a token without probe rights: a user's span.
      metrics.probeMarks.inc({ outcome: grant.origins.has('probe') ? check : 'token_not_probe' });
    } else if (probe) metrics.probeMarks.inc({ outcome: check });
    if (origin === 'user' && !grant.origins.has('user')) {
      metrics.spans.inc({ outcome: 'rejected', reason: 'origin_not_allowed', convention: 'none', origin });
      kept.refused += 1;
      kept.reasons.add(`this token may not post user spans (only ${[...grant.origins].join(', ')})`);
      continue;
    }
    const use = classifySpan(span);
    if (use.use === 'ignored') {
      metrics.spans.inc({ outcome: 'ignored', reason: use.reason, convention: use.convention ?? 'none', origin });
      continue;
    }
    const convention = use.use === 'read' ? use.convention : 'none';
    if (origin === 'user' && (!user.enabled || user.excludedServices.has(serviceOf(span)))) {
      metrics.spans.inc({ outcome: 'ignored', reason: 'user_traffic_off', convention, origin });
      continue;
    }
    metrics.spans.inc({ outcome: 'stored', reason: use.use, convention, origin });
    if (origin === 'probe') {
      kept.probe.push(span);
      continue;
    }
    kept.user.push(
      redactSpanText(span, (text) => {
        const { text: redacted, found } = user.redactor.redact(text);
        for (const [rule, count] of Object.entries(found)) metrics.redactions.inc({ rule }, count);
        return redacted;
      }).span,
    );
  }
  return kept;
}

/** 200 with OTLP partial success naming what was refused (invalid ids, origin, full traces); exporters do not retry it. */
function respond(res: Response, encoding: 'protobuf' | 'json', rejected: number, reasons: readonly string[]): void {
  const partial = rejected === 0 ? {} : { partialSuccess: { rejectedSpans: rejected, errorMessage: reasons.slice(0, 5).join('; ') } };
  if (encoding === 'json') {
    res.status(200).json(rejected === 0 ? {} : { partialSuccess: { ...partial.partialSuccess, rejectedSpans: String(rejected) } });
    return;
  }
  const body = ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(partial)).finish();
  res.status(200).type(PROTOBUF).send(Buffer.from(body));
}

export function otlpRoutes(options: OtlpRouteOptions): (app: Express) => void {
  const now = options.now ?? Date.now;
  const { metrics } = options;
  const rawProtobuf = express.raw({ type: PROTOBUF, limit: options.maxBodyBytes });
  return (app) => {
    app.post('/v1/traces', rawProtobuf, async (req: Request, res: Response) => {
      const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      const encoding = type === PROTOBUF ? 'protobuf' : type === 'application/json' ? 'json' : null;
      if (encoding === null) {
        metrics.requests.inc({ encoding: 'none', outcome: 'unsupported' });
        throw new HttpRequestError(415, `unsupported content-type ${type ?? '(none)'}: OTLP/HTTP sends ${PROTOBUF} or application/json`);
      }
      let decoded: DecodedExport;
      try {
        decoded =
          encoding === 'protobuf'
            ? decodeProtobufExport(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0))
            : decodeJsonExport(req.body);
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error;
        metrics.requests.inc({ encoding, outcome: 'bad_request' });
        throw new HttpRequestError(400, error.message);
      }
      const caller = principalOf(res)?.name ?? 'anonymous';
      const grant = options.grants.get(caller) ?? options.defaultGrant;
      const decision = options.rateLimiter.take(grant.name, decoded.spans.length);
      if (!decision.admitted) {
        metrics.requests.inc({ encoding, outcome: 'rate_limited' });
        res.set('retry-after', String(decision.retryAfterSeconds));
        throw new HttpRequestError(
          429,
          `span rate limit of ${grant.name} exceeded; retry after ${decision.retryAfterSeconds} s (TRACE_INTAKE_RATE_SPANS_PER_SECOND)`,
        );
      }
      const kept = keep(decoded, options, grant);
      const stop = metrics.writeDuration.startTimer();
      let refusedByCap = 0;
      try {
        const probe = await options.caps.probe.admit(kept.probe);
        const user = await options.caps.user.admit(kept.user);
        refusedByCap = probe.refused + user.refused;
        if (refusedByCap > 0) {
          metrics.spans.inc({ outcome: 'rejected', reason: 'trace_full', convention: 'none', origin: 'probe' }, probe.refused);
          metrics.spans.inc({ outcome: 'rejected', reason: 'trace_full', convention: 'none', origin: 'user' }, user.refused);
          options.logger.warn(
            { caller: grant.name, refused: refusedByCap, traces: [...probe.fullTraces, ...user.fullTraces].slice(0, 5) },
            'spans over the per-trace cap refused',
          );
        }
        const receivedAt = now();
        await options.store.write(probe.admitted, receivedAt);
        await options.user.store.write(user.admitted, receivedAt);
      } catch (error) {
        metrics.requests.inc({ encoding, outcome: 'store_unavailable' });
        // Counts only, no span: the bulk error names index and status (only ids, names and times are mapped fields).
        options.logger.error(
          { err: error, probe_spans: kept.probe.length, user_spans: kept.user.length },
          'span store write failed; the exporter will retry',
        );
        // 503 is retryable for OTLP exporters: the batch is not lost, it comes again.
        throw new HttpRequestError(503, 'span store unavailable; retry later');
      } finally {
        stop();
      }
      metrics.requests.inc({ encoding, outcome: 'accepted' });
      const reasons = [
        ...decoded.rejectReasons.slice(0, 3),
        ...kept.reasons,
        ...(refusedByCap > 0 ? [`${refusedByCap} spans over the per-trace cap of stored spans (TRACE_INTAKE_MAX_SPANS_PER_TRACE)`] : []),
      ];
      respond(res, encoding, decoded.rejected + kept.refused + refusedByCap, reasons);
    });
  };
}
