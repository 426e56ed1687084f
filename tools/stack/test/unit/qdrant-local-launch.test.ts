import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadStackConfig } from '../../src/index.ts';
import type { StackContext } from '../../src/service.ts';
import { qdrantLocal } from '../../src/services/qdrant-local.ts';

function context(root: string): StackContext {
  const stackDir = join(root, '.stack');
  return { config: loadStackConfig(root, {}), repoRoot: root, stackDir, serviceDir: join(stackDir, 'qdrant-local'), log: () => undefined };
}

/** Runs `fn` with QDRANT_API_KEY set to `value` (or unset), restoring it after. */
async function withKeyEnv(value: string | undefined, fn: () => Promise<void>): Promise<void> {
  const saved = process.env.QDRANT_API_KEY;
  if (value === undefined) delete process.env.QDRANT_API_KEY;
  else process.env.QDRANT_API_KEY = value;
  try {
    await fn();
  } finally {
    if (saved === undefined) delete process.env.QDRANT_API_KEY;
    else process.env.QDRANT_API_KEY = saved;
  }
}

test("qdrant-local is launched with the real server's environment: snapshots dir, and the stack's API key in env only", async () => {
  const root = mkdtempSync(join(tmpdir(), 'stack-qlocal-'));
  try {
    const ctx = context(root);
    await withKeyEnv(undefined, async () => {
      const bare = await qdrantLocal.launch(ctx);
      assert.equal(bare.env?.QDRANT__STORAGE__SNAPSHOTS_PATH, join(ctx.serviceDir, 'data', 'snapshots'));
      assert.equal(bare.env?.QDRANT__SERVICE__API_KEY, undefined, 'no key anywhere: no auth');

      // The key the qdrant service generated is the one every client sends; qdrant-local wants it too.
      mkdirSync(join(ctx.stackDir, 'qdrant'), { recursive: true });
      writeFileSync(join(ctx.stackDir, 'qdrant', 'api-key'), 'generated-key\n');
      const keyed = await qdrantLocal.launch(ctx);
      assert.equal(keyed.env?.QDRANT__SERVICE__API_KEY, 'generated-key');
      assert.ok(!keyed.args.some((a) => a.includes('generated-key')), 'the key is never on the command line');
    });
    await withKeyEnv('from-env', async () => {
      assert.equal((await qdrantLocal.launch(ctx)).env?.QDRANT__SERVICE__API_KEY, 'from-env');
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
