import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { z } from 'zod';
import { CONTRACT_DOCUMENT_PATH, CONTRACT_SCHEMAS, CONTRACT_VERSION } from '../../src/index.ts';
import { INVALID, VALID } from './examples.ts';

interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, unknown>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

const document = parse(readFileSync(CONTRACT_DOCUMENT_PATH, 'utf8')) as OpenApiDocument;
// OpenAPI 3.1 schemas are JSON Schema 2020-12; the whole document is registered so local $refs resolve.
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, 'contract');

function openApiValidates(name: string, payload: unknown): boolean {
  const validate = ajv.getSchema(`contract#/components/schemas/${name}`);
  assert.ok(validate, `components.schemas.${name} exists in the OpenAPI document`);
  return validate(payload) === true;
}

function zodValidates(name: string, payload: unknown): boolean {
  const schema = (CONTRACT_SCHEMAS as Record<string, z.ZodTypeAny>)[name];
  assert.ok(schema, `zod schema ${name} exists`);
  return schema.safeParse(payload).success;
}

test('the document declares the contract version the code reports', () => {
  assert.equal(document.info.version, CONTRACT_VERSION);
  for (const path of ['/query', '/traces/{id}', '/healthz', '/capabilities', '/repair/reindex', '/repair/reranker/pin']) {
    assert.ok(path in document.paths, `${path} is in the document`);
  }
});

test('valid examples pass both the OpenAPI schema and the zod schema', () => {
  for (const [name, payloads] of Object.entries(VALID)) {
    for (const payload of JSON.parse(JSON.stringify(payloads)) as unknown[]) {
      assert.equal(openApiValidates(name, payload), true, `OpenAPI ${name} accepts ${JSON.stringify(payload)}`);
      assert.equal(zodValidates(name, payload), true, `zod ${name} accepts ${JSON.stringify(payload)}`);
    }
  }
});

test('invalid examples fail both the OpenAPI schema and the zod schema', () => {
  for (const [name, payloads] of Object.entries(INVALID)) {
    for (const payload of JSON.parse(JSON.stringify(payloads)) as unknown[]) {
      assert.equal(openApiValidates(name, payload), false, `OpenAPI ${name} rejects ${JSON.stringify(payload)}`);
      assert.equal(zodValidates(name, payload), false, `zod ${name} rejects ${JSON.stringify(payload)}`);
    }
  }
});

test('every object schema declares the same properties and required keys in both', () => {
  for (const [name, schema] of Object.entries(CONTRACT_SCHEMAS)) {
    const component = document.components.schemas[name];
    assert.ok(component, `components.schemas.${name}`);
    const shape = 'shape' in schema ? (schema.shape as Record<string, z.ZodTypeAny>) : undefined;
    if (shape === undefined || component.properties === undefined) continue;
    assert.deepEqual(Object.keys(shape).sort(), Object.keys(component.properties).sort(), `${name} properties`);
    const zodRequired = Object.entries(shape)
      .filter(([, field]) => !field.isOptional())
      .map(([key]) => key)
      .sort();
    assert.deepEqual(zodRequired, [...(component.required ?? [])].sort(), `${name} required keys`);
  }
});
