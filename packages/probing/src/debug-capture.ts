import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * SENTINEL_DEBUG=1 keeps every full request/response pair (with the headers the sentinel sent) in
 * a JSON Lines file per day: the design document's incident 5.1 (a WAF answering the probe's
 * User-Agent with 403) took hours to find without it.
 */
export class DebugCapture {
  constructor(
    private readonly directory: string,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  async record(entry: Record<string, unknown>): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const at = new Date().toISOString();
    const line = JSON.stringify({ at, headers: this.headers, ...entry });
    await appendFile(join(this.directory, `probes-${at.slice(0, 10)}.jsonl`), `${line}\n`);
  }
}
