export { ADAPTER_API_VERSION, AdapterFileError, RagAdapterFile, loadAdapterFile, parseAdapter, type AdapterIssue } from './adapter-file.ts';
export { AdapterRagClient, adapterClientFromFile, type AdapterRagClientOptions, type AdapterCallOptions } from './adapter-client.ts';
export { extractResponse, matches } from './extract.ts';
export { signalAvailability, contractSignals, type RagSignals, type SignalAvailability, type MappedField } from './signal-availability.ts';
