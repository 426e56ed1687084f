export * from './canonical-json.ts';
export * from './evidence-record.ts';
export * from './evidence-ledger.ts';
