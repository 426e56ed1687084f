import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Headers whose values identify the caller without being secrets; every other configured value is redacted. */
const SHOWN_HEADERS = new Set(['user-agent', 'accept', 'content-type', 'accept-language']);
const REDACTED = '[redacted]';

/**
 * SENTINEL_DEBUG=1 keeps every full request/response pair (with the headers the sentinel sent) in
 * a JSON Lines file per day: the design document's incident 5.1 (a WAF answering the probe's
 * User-Agent with 403) took hours to find without it. Header names are kept (which headers went
 * out matters to that hunt) but configured values other than the User-Agent are redacted, and any
 * occurrence of them elsewhere in an entry (a RAG echoing a key back) is blanked too.
 */
export class DebugCapture {
  private readonly shownHeaders: Record<string, string>;
  private readonly secrets: string[];

  constructor(
    private readonly directory: string,
    headers: Readonly<Record<string, string>>,
  ) {
    this.shownHeaders = {};
    const secrets = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      const shown = SHOWN_HEADERS.has(name.toLowerCase());
      this.shownHeaders[name] = shown ? value : REDACTED;
      if (!shown && value.length >= 4) {
        secrets.add(value);
        // "Bearer abc" is also sent and echoed as "abc".
        const bare = value.replace(/^(Bearer|Basic|Token)\s+/i, '');
        if (bare.length >= 4) secrets.add(bare);
      }
    }
    // Longest first, so a value containing another is replaced whole.
    this.secrets = [...secrets].sort((a, b) => b.length - a.length);
  }

  /** The headers as they are written to the capture. */
  get recordedHeaders(): Readonly<Record<string, string>> {
    return this.shownHeaders;
  }

  async record(entry: Record<string, unknown>): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const at = new Date().toISOString();
    let line = JSON.stringify({ at, headers: this.shownHeaders, ...entry });
    for (const secret of this.secrets) {
      // The value as JSON.stringify would have escaped it inside a string.
      const escaped = JSON.stringify(secret).slice(1, -1);
      line = line.split(escaped).join(REDACTED);
    }
    await appendFile(join(this.directory, `probes-${at.slice(0, 10)}.jsonl`), `${line}\n`, { mode: 0o600 });
  }
}
