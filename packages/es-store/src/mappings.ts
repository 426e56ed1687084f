import type { FieldMapping } from './document-store.ts';

/** The field mappings the stores use, by name. */
export const keyword = { type: 'keyword' } as const satisfies FieldMapping;
export const text = { type: 'text' } as const satisfies FieldMapping;
export const date = { type: 'date' } as const satisfies FieldMapping;
export const epochMillis = { type: 'date', format: 'epoch_millis' } as const satisfies FieldMapping;
export const integer = { type: 'integer' } as const satisfies FieldMapping;
export const long = { type: 'long' } as const satisfies FieldMapping;
export const float = { type: 'float' } as const satisfies FieldMapping;
export const double = { type: 'double' } as const satisfies FieldMapping;
export const boolean = { type: 'boolean' } as const satisfies FieldMapping;
/** Kept in _source, never indexed: any shape. */
export const opaque = { type: 'object', enabled: false } as const satisfies FieldMapping;
