/** The fault injector takes the modes of the shared fault catalogue (@rag-immune/rag-contract), its default first. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAULT_CATALOGUE } from '@rag-immune/rag-contract';
import { FaultInjector, type FaultTargets } from '../../src/faults/fault-injector.ts';
import { FaultJournal } from '../../src/faults/fault-journal.ts';
import { RequestRefusedError } from '../../src/errors.ts';

test('a mode the catalogue does not list is refused with 400, naming the catalogue’s modes; none named takes its first', async () => {
  const used: string[] = [];
  const reranker = { version: 'v2.1', use: (version: string) => void used.push(version) };
  const injector = new FaultInjector({ instance: 'unit', reranker } as unknown as FaultTargets, new FaultJournal(undefined));
  await assert.rejects(
    injector.inject('reranker-drift', { mode: 'no-such-mode' }),
    (e: unknown) =>
      e instanceof RequestRefusedError && e.status === 400 && e.message.endsWith(FAULT_CATALOGUE['reranker-drift'].modes.join(', ')),
  );
  assert.deepEqual(used, [], 'nothing injected');
  const { fault } = await injector.inject('reranker-drift', {});
  assert.equal(fault.mode, FAULT_CATALOGUE['reranker-drift'].modes[0]);
  assert.deepEqual(used, [FAULT_CATALOGUE['reranker-drift'].modes[0]]);
});
