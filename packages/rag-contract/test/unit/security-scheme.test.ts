import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONTRACT_DOCUMENT_PATH } from '../../src/index.ts';

type Operation = { security?: Record<string, string[]>[]; responses: Record<string, unknown> };
const document = parse(readFileSync(CONTRACT_DOCUMENT_PATH, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

test('the contract declares bearer auth on every revealing or mutating route, and only there', () => {
  assert.deepEqual(document.components.securitySchemes?.bearerAuth, {
    ...document.components.securitySchemes?.bearerAuth,
    type: 'http',
    scheme: 'bearer',
  });
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const guarded = path.startsWith('/repair/') || path.startsWith('/traces/') || path.startsWith('/knowledge/');
      const declared = (operation.security ?? []).some((requirement) => 'bearerAuth' in requirement);
      assert.equal(declared, guarded, `${method.toUpperCase()} ${path} ${guarded ? 'needs' : 'must not need'} bearerAuth`);
      if (guarded) assert.ok('401' in operation.responses, `${method.toUpperCase()} ${path} documents 401`);
    }
  }
});
