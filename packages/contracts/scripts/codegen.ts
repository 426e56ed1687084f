/**
 * Generates the TypeScript event types from avro/*.avsc so that no contract is written twice
 * by hand. `--check` fails (exit 1) when a generated file is stale, which the lint step runs.
 */
import { readFileSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { join, basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toTypeScript } from '@ovotech/avro-ts';
import type { Schema } from 'avsc';

const here = dirname(fileURLToPath(import.meta.url));
const avroDir = join(here, '..', '..', '..', 'avro');
const outDir = join(here, '..', 'src', 'generated');
const checkOnly = process.argv.includes('--check');

const banner =
  '// GENERATED from avro/%FILE% by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.\n/* eslint-disable */\n';

let stale = 0;
for (const file of readdirSync(avroDir)
  .filter((f) => f.endsWith('.avsc'))
  .sort()) {
  const schema = JSON.parse(readFileSync(join(avroDir, file), 'utf8')) as Schema;
  // The TS compiler API inside avro-ts prints deprecation notices we cannot act on.
  const warn = console.warn;
  console.warn = () => undefined;
  const body = toTypeScript(schema);
  console.warn = warn;
  const text = banner.replace('%FILE%', file) + body.replace(/^\/\* eslint-disable[^\n]*\n/, '');
  const target = join(outDir, `${basename(file, '.avsc')}.ts`);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === text) continue;
  if (checkOnly) {
    console.error(`stale: ${target} does not match avro/${file}; run npm run codegen`);
    stale += 1;
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
if (stale > 0) process.exit(1);
