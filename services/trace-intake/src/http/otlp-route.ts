/**
 * POST /v1/traces, the OTLP/HTTP trace endpoint: `application/x-protobuf` or `application/json`,
 * optionally gzip (decompressed by the body parser, the size limit applying to the decompressed
 * body). A body that does not decode is refused whole with a 400 and nothing is stored; spans with
 * invalid ids are refused one by one (OTLP partial success); spans no mapper reads are dropped and
 * counted. The answer is an ExportTraceServiceResponse in the request's encoding.
 */
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import {
  classifySpan,
  decodeJsonExport,
  decodeProtobufExport,
  ExportTraceServiceResponse,
  OtlpDecodeError,
  type DecodedExport,
  type SpanRecord,
  type SpanStore,
} from '@rag-immune/traces';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import type { IntakeMetrics } from '../metrics.ts';

const PROTOBUF = 'application/x-protobuf';

export interface OtlpRouteOptions {
  store: SpanStore;
  metrics: IntakeMetrics;
  logger: Logger;
  maxBodyBytes: number;
  now?: () => number;
}

/** The spans worth keeping, after counting the rest. */
function keep(decoded: DecodedExport, metrics: IntakeMetrics): SpanRecord[] {
  if (decoded.rejected > 0) metrics.spans.inc({ outcome: 'rejected', reason: 'invalid_id', convention: 'none' }, decoded.rejected);
  return decoded.spans.filter((span) => {
    const use = classifySpan(span);
    if (use.use === 'ignored') {
      metrics.spans.inc({ outcome: 'ignored', reason: use.reason, convention: use.convention ?? 'none' });
      return false;
    }
    metrics.spans.inc({ outcome: 'stored', reason: use.use, convention: use.use === 'read' ? use.convention : 'none' });
    return true;
  });
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
      const spans = keep(decoded, metrics);
      const stop = metrics.writeDuration.startTimer();
      try {
        await options.store.write(spans, now());
      } catch (error) {
        metrics.requests.inc({ encoding, outcome: 'store_unavailable' });
        options.logger.error({ err: error, spans: spans.length }, 'span store write failed; the exporter will retry');
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
