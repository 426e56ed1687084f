import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { grantsCommand, renderArguments } from '../../src/commands/effector.ts';

test('`immune grants list` shows the exact arguments each grant approves', async () => {
  const grant = {
    key: 'inc-1:r1:pin_generator_version',
    tool: 'pin_generator_version',
    status: 'pending',
    effective_status: 'pending',
    expires_at: '2026-01-01T00:00:00.000Z',
    decided_by: null,
    arguments: { version: 'prompt-v1', reason: 'generator drift' },
  };
  const server = createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ grants: [grant] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let stdout = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  try {
    const program = new Command('immune').exitOverride();
    program.addCommand(grantsCommand());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await program.parseAsync(['grants', 'list', '--url', url, '--token', 'cli-token-0123456789abcdef'], { from: 'user' });
  } finally {
    process.stdout.write = write;
    server.close();
  }
  assert.match(stdout, /ARGUMENTS/);
  assert.match(stdout, /version="prompt-v1" reason="generator drift"/);
  assert.equal(renderArguments(undefined), '-');
  assert.equal(renderArguments({}), '(none)');
});
