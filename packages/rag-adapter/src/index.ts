export {
  ADAPTER_API_VERSION,
  AdapterFileError,
  IngestionWebhook,
  KnowledgeDeclaration,
  RagAdapterFile,
  RepairDeclaration,
  loadAdapterFile,
  parseAdapter,
  type AdapterIssue,
} from './adapter-file.ts';
export {
  IngestionWebhookClient,
  IngestionWebhookError,
  WEBHOOK_VARS,
  type IngestionCallOptions,
  type IngestionRequest,
  type IngestionResult,
} from './ingestion-webhook.ts';
export { AdapterRagClient, adapterClientFromFile, type AdapterRagClientOptions, type AdapterCallOptions } from './adapter-client.ts';
export { extractResponse, matches } from './extract.ts';
export { signalAvailability, contractSignals, type RagSignals, type SignalAvailability, type MappedField } from './signal-availability.ts';
