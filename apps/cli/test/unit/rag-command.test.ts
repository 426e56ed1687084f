import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command, CommanderError } from 'commander';
import { ragCommand } from '../../src/commands/rag.ts';
import { CliError, ExitCode } from '../../src/exit-codes.ts';

/** Runs `immune rag …` in-process (main.ts wiring is the lead's), capturing stdout. */
async function immuneRag(args: string[]): Promise<{ stdout: string; error?: unknown }> {
  const program = new Command('immune').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  program.addCommand(ragCommand());
  const overrideExits = (command: Command): void => {
    command.exitOverride();
    command.commands.forEach(overrideExits);
  };
  overrideExits(program);
  let stdout = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  try {
    await program.parseAsync(['node', 'immune', 'rag', ...args]);
    return { stdout };
  } catch (error) {
    return { stdout, error };
  } finally {
    process.stdout.write = write;
  }
}

test('inject posts the kind, mode and scope to the admin API and prints the journal time', async () => {
  const seen: { method?: string; url?: string; body?: string } = {};
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (part: Buffer) => (body += part.toString()));
    req.on('end', () => {
      Object.assign(seen, { method: req.method, url: req.url, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          fault: {
            kind: 'parser-bug',
            mode: 'boilerplate',
            injected_at: '2026-01-01T00:00:00.000Z',
            affected_knowledge_ids: ['changelog/bash'],
          },
          journal: { at: '2026-01-01T00:00:00.000Z' },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const result = await immuneRag(['faults', 'inject', 'parser-bug', '--mode', 'boilerplate', '--fraction', '0.3', '--url', url]);
    assert.equal(result.error, undefined);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/admin/faults/parser-bug');
    assert.deepEqual(JSON.parse(seen.body ?? ''), { mode: 'boilerplate', scope: { fraction: 0.3 } });
    assert.match(result.stdout, /injected parser-bug \(boilerplate\) since 2026-01-01T00:00:00.000Z, 1 knowledge ids affected/);
  } finally {
    server.close();
  }
});

test('an unknown kind is a usage error; an absent RAG is unreachable (69)', async () => {
  const usage = await immuneRag(['faults', 'inject', 'meteor-strike']);
  assert.ok(usage.error instanceof CommanderError);
  const unreachable = await immuneRag(['faults', 'list', '--url', 'http://127.0.0.1:9']);
  assert.ok(unreachable.error instanceof CliError);
  assert.equal(unreachable.error.exitCode, ExitCode.unavailable);
});
