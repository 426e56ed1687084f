/**
 * The topic schemas in avro/ name the types they share (the event producer, the repair intent, the
 * root cause, the component) by full name; each shared type is written once, in avro/common/. A
 * topic schema as registered is self-contained, so it is assembled: each shared type is inlined at
 * its first use, as the schemas were written by hand before (identical Avro, identical fingerprint).
 * `x-` attributes (the catalogue's annotations) stay out of what is registered.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const NAMED = new Set(['record', 'enum', 'fixed']);

export interface SharedType {
  fullName: string;
  /** The definition as written, `x-` attributes included. */
  schema: { [key: string]: Json };
}

function fullNameOf(name: string, namespace: string | undefined): string {
  return name.includes('.') || namespace === undefined ? name : `${namespace}.${name}`;
}

/** The named types in `dir` (avro/common/), one per file, by full name. */
export function loadSharedTypes(dir: string): Map<string, SharedType> {
  const shared = new Map<string, SharedType>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()) {
    const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { [key: string]: Json };
    if (typeof schema.name !== 'string' || !NAMED.has(String(schema.type)))
      throw new Error(`${file}: a shared type is one named record, enum or fixed`);
    const fullName = fullNameOf(schema.name, typeof schema.namespace === 'string' ? schema.namespace : undefined);
    if (!fullName.includes('.')) throw new Error(`${file}: a shared type names its namespace`);
    shared.set(fullName, { fullName, schema });
  }
  return shared;
}

const withoutExtensions = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(withoutExtensions);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('x-'))
        .map(([key, v]) => [key, withoutExtensions(v)]),
    );
  return value;
};

/**
 * The schema with every shared type inlined at its first use (document order) and referenced by
 * name after it. Throws when a topic schema defines a shared type inline (a copy) instead of naming it.
 */
export function assembleSchema<T>(schema: T, shared: ReadonlyMap<string, SharedType>): T {
  const defined = new Set<string>();
  const visit = (node: Json, namespace: string | undefined, key: string | null): Json => {
    // A type position holding a name: the first use of a shared type gets its definition.
    if (typeof node === 'string' && (key === 'type' || key === 'items' || key === 'values' || key === null)) {
      const type = shared.get(node) ?? shared.get(fullNameOf(node, namespace));
      if (type === undefined || defined.has(type.fullName)) return node;
      defined.add(type.fullName);
      // A namespace the enclosing one already gives is left implicit, as the hand-written copies had it.
      const definition = Object.fromEntries(
        Object.entries(withoutExtensions(type.schema) as { [key: string]: Json }).filter(
          ([k, v]) => !(k === 'namespace' && v === namespace),
        ),
      );
      return visit(definition, namespace, 'type');
    }
    if (Array.isArray(node)) return node.map((item) => visit(item, namespace, key === 'type' ? null : key));
    if (node === null || typeof node !== 'object') return node;
    let ns = namespace;
    if (typeof node.name === 'string' && NAMED.has(String(node.type))) {
      ns = typeof node.namespace === 'string' ? node.namespace : namespace;
      const fullName = fullNameOf(node.name, ns);
      if (shared.has(fullName) && !defined.has(fullName))
        throw new Error(`${fullName} is defined inline: name the shared type in avro/common/ instead`);
      defined.add(fullName);
    }
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === 'fields' ? (v as Json[]).map((f) => visit(f, ns, 'field')) : visit(v, ns, k)]),
    );
  };
  return visit(schema as Json, undefined, null) as T;
}
