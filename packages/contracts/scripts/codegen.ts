/**
 * Generates from avro/ what is otherwise written twice by hand: the TypeScript event types of the
 * three topic schemas (assembled with the shared types of avro/common/), the catalogue of causes,
 * components, repair intents and incident outcomes (packages/contracts/src/generated/catalogue.ts),
 * and the same vocabularies as zod enums for the memory worker's HTTP contract
 * (packages/memory-client/src/generated/contract-enums.ts), and the cause × repair table of the docs
 * (docs/causes-and-repairs.md: the catalogue beside the effector's policy, which it checks names only
 * catalogued causes). `--check` fails (exit 1) when a generated file is stale, which the lint step runs.
 */
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join, basename, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toTypeScript } from '@ovotech/avro-ts';
import type { Schema } from 'avsc';
import { assembleSchema, loadSharedTypes } from '../src/avro-assembly.ts';
import { causesAndRepairsDoc } from './causes-and-repairs-doc.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const avroDir = join(root, 'avro');
const outDir = join(here, '..', 'src', 'generated');
const memoryClientOut = join(root, 'packages', 'memory-client', 'src', 'generated', 'contract-enums.ts');
const policyFile = join(root, 'services', 'effector', 'policy', 'policy.v1.yaml');
const causesDocOut = join(root, 'docs', 'causes-and-repairs.md');
const checkOnly = process.argv.includes('--check');
const shared = loadSharedTypes(join(avroDir, 'common'));

const banner = (source: string) =>
  `// GENERATED from ${source} by packages/contracts/scripts/codegen.ts. Do not edit: run \`npm run codegen\`.\n/* eslint-disable */\n`;

const outputs: { target: string; text: string }[] = [];

for (const file of readdirSync(avroDir)
  .filter((f) => f.endsWith('.avsc'))
  .sort()) {
  const schema = assembleSchema(JSON.parse(readFileSync(join(avroDir, file), 'utf8')), shared) as Schema;
  // The TS compiler API inside avro-ts prints deprecation notices we cannot act on.
  const warn = console.warn;
  console.warn = () => undefined;
  const body = toTypeScript(schema);
  console.warn = warn;
  outputs.push({
    target: join(outDir, `${basename(file, '.avsc')}.ts`),
    text: banner(`avro/${file}`) + body.replace(/^\/\* eslint-disable[^\n]*\n/, ''),
  });
}

interface EnumSchema {
  symbols: string[];
  'x-catalogue'?: Record<string, { component: string; intents: string[] }>;
}
const enumOf = (fullName: string): EnumSchema => {
  const type = shared.get(fullName);
  if (type === undefined || type.schema.type !== 'enum') throw new Error(`avro/common/ has no enum ${fullName}`);
  return type.schema as unknown as EnumSchema;
};
const causes = enumOf('io.ragimmune.identifier.RootCause');
const components = enumOf('io.ragimmune.identifier.RagComponent');
const intents = enumOf('io.ragimmune.common.RepairIntent');
const outcomes = enumOf('io.ragimmune.common.IncidentOutcome');

const catalogue = causes['x-catalogue'] ?? {};
const named = causes.symbols.filter((c) => c !== 'unknown');
for (const cause of named) {
  const entry = catalogue[cause];
  if (!entry) throw new Error(`RootCause ${cause} has no x-catalogue entry (component, intents) in avro/common/RootCause.avsc`);
  if (!components.symbols.includes(entry.component)) throw new Error(`RootCause ${cause}: unknown component ${entry.component}`);
  for (const intent of entry.intents)
    if (!intents.symbols.includes(intent)) throw new Error(`RootCause ${cause}: unknown intent ${intent}`);
}
for (const cause of Object.keys(catalogue))
  if (!named.includes(cause)) throw new Error(`x-catalogue names ${cause}, which is no RootCause symbol`);

const list = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;
outputs.push({
  target: join(outDir, 'catalogue.ts'),
  text:
    banner('avro/common/*.avsc') +
    `
/** Every root cause the identifier may name; 'unknown' is an abstention. */
export const ROOT_CAUSES = ${list(causes.symbols)} as const;
/** Every component of a RAG a report may implicate. */
export const RAG_COMPONENTS = ${list(components.symbols)} as const;
/** Every repair intent a report may recommend and an action carry out. */
export const REPAIR_INTENTS = ${list(intents.symbols)} as const;
/** Where an incident stands, in every worker's words. */
export const INCIDENT_OUTCOMES = ${list(outcomes.symbols)} as const;

export type CatalogueCause = Exclude<(typeof ROOT_CAUSES)[number], 'unknown'>;

/** Each named cause: the component it lives in and the repair intents that heal it, preferred first. */
export const CAUSES: { readonly [C in CatalogueCause]: { readonly component: (typeof RAG_COMPONENTS)[number]; readonly intents: readonly (typeof REPAIR_INTENTS)[number][] } } = {
${named.map((c) => `  ${c}: { component: '${catalogue[c]!.component}', intents: ${list(catalogue[c]!.intents)} },`).join('\n')}
};
`,
});

outputs.push({
  target: memoryClientOut,
  text:
    banner('avro/common/*.avsc') +
    `import { z } from 'zod';

/** The contract's vocabularies as zod enums, so an HTTP body is checked like an Avro event. */
export const RootCauseName = z.enum(${list(causes.symbols)});
export const RagComponentName = z.enum(${list(components.symbols)});
export const RepairIntentName = z.enum(${list(intents.symbols)});
export const IncidentOutcomeName = z.enum(${list(outcomes.symbols)});
`,
});

// Read as data (the effector's own loader validates it at start-up); a path, not an import, so no upward dependency.
outputs.push({
  target: causesDocOut,
  text: causesAndRepairsDoc({
    causes: causes.symbols,
    catalogue,
    intents: intents.symbols,
    policyText: readFileSync(policyFile, 'utf8'),
    policySource: relative(root, policyFile),
  }),
});

let stale = 0;
for (const { target, text } of outputs) {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === text) continue;
  if (checkOnly) {
    console.error(`stale: ${relative(root, target)} does not match its sources (avro/, the effector policy); run npm run codegen`);
    stale += 1;
  } else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    console.log(`wrote ${relative(root, target)}`);
  }
}
if (stale > 0) process.exit(1);
