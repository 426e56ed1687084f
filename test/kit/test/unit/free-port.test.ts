import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../../src/processes.ts';

const ephemeralLow = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
})();

test('free ports for children lie below the ephemeral range, are bindable and never handed out twice', async () => {
  const ports = await Promise.all(Array.from({ length: 30 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, 'no port twice');
  for (const port of ports) assert.ok(port >= 20_000 && port < ephemeralLow, `${port} is outside [20000, ${ephemeralLow})`);
  // The last one can really be listened on.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ports.at(-1), '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});
