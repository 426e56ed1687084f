import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The vendored opentelemetry-proto v1.11.0 definitions (see proto/README.md). */
const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

function load(): protobuf.Root {
  const root = new protobuf.Root();
  // Imports are written relative to the repository root of opentelemetry-proto.
  root.resolvePath = (_origin, target) => (target.startsWith(PROTO_ROOT) ? target : `${PROTO_ROOT}${target}`);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  root.resolveAll();
  return root;
}

const root = load();

/** `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`: what an OTLP/HTTP exporter POSTs. */
export const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
/** The answer to an export, with `partial_success` when spans were rejected. */
export const ExportTraceServiceResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
