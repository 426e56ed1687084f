/**
 * POST /v1/traces, the OTLP/HTTP trace endpoint: `application/x-protobuf` or `application/json`,
 * optionally gzip (decompressed by the body parser, the size limit applying to the decompressed
 * body). A body that does not decode is refused whole with a 400 and nothing is stored; spans with
 * invalid ids are refused one by one (OTLP partial success); spans no mapper reads are dropped and
 * counted. Each kept span is a probe's (its tracestate carries `rag-immune=probe`, which the sentinel
 * sends) or a user's: probe spans go to the probe store as they are; user spans are dropped when user
 * traffic is off for their service, else redacted and written to the user store. Nothing of a span's
 * text is logged. The answer is an ExportTraceServiceResponse in the request's encoding.
 */
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import {
  classifySpan,
  redactSpanText,
  spanOrigin,
  decodeJsonExport,
  decodeProtobufExport,
  ExportTraceServiceResponse,
  OtlpDecodeError,
  type DecodedExport,
  type SpanRecord,
  type SpanStore,
} from '@rag-immune/traces';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import type { Redactor } from '@rag-immune/redaction';
import type { IntakeMetrics } from '../metrics.ts';

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
  now?: () => number;
}

const serviceOf = (span: SpanRecord) => (typeof span.resource['service.name'] === 'string' ? span.resource['service.name'] : '');

/** The spans worth keeping, probe and user apart (user spans redacted), after counting the rest. */
function keep(decoded: DecodedExport, user: UserTraffic, metrics: IntakeMetrics): { probe: SpanRecord[]; user: SpanRecord[] } {
  if (decoded.rejected > 0)
    metrics.spans.inc({ outcome: 'rejected', reason: 'invalid_id', convention: 'none', origin: 'none' }, decoded.rejected);
  const kept = { probe: [] as SpanRecord[], user: [] as SpanRecord[] };
  for (const span of decoded.spans) {
    const origin = spanOrigin(span);
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

function respond(res: Response, encoding: 'protobuf' | 'json', decoded: DecodedExport): void {
  const partial =
    decoded.rejected === 0
      ? {}
      : { partialSuccess: { rejectedSpans: decoded.rejected, errorMessage: decoded.rejectReasons.slice(0, 5).join('; ') } };
  if (encoding === 'json') {
    res
      .status(200)
      .json(decoded.rejected === 0 ? {} : { partialSuccess: { ...partial.partialSuccess, rejectedSpans: String(decoded.rejected) } });
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
      const spans = keep(decoded, options.user, metrics);
      const stop = metrics.writeDuration.startTimer();
      try {
        const receivedAt = now();
        await options.store.write(spans.probe, receivedAt);
        await options.user.store.write(spans.user, receivedAt);
      } catch (error) {
        metrics.requests.inc({ encoding, outcome: 'store_unavailable' });
        // Counts only, no span: the bulk error names index and status (only ids, names and times are mapped fields).
        options.logger.error(
          { err: error, probe_spans: spans.probe.length, user_spans: spans.user.length },
          'span store write failed; the exporter will retry',
        );
        // 503 is retryable for OTLP exporters: the batch is not lost, it comes again.
        throw new HttpRequestError(503, 'span store unavailable; retry later');
      } finally {
        stop();
      }
      metrics.requests.inc({ encoding, outcome: 'accepted' });
      respond(res, encoding, decoded);
    });
  };
}
