import { z } from 'zod';

/**
 * What the effector reads of the identifier's record of an incident (its `GET /incidents/{id}`):
 * the latest report revision and event id it issued, the probes grouped into the incident and its
 * window. Other fields are ignored, so an identifier that answers more stays compatible.
 */
export const IdentifierIncidentSchema = z
  .object({
    incident_id: z.string(),
    state: z.string(),
    report_revision: z.number().int().nonnegative(),
    window_start: z.number(),
    window_end: z.number(),
    probes: z.array(z.object({ probe_id: z.string(), probe_version: z.number().int(), query: z.string() }).passthrough()),
    ledger_head: z.object({ hash: z.string(), seq: z.number().int().nonnegative() }).passthrough().optional(),
    last_report: z
      .object({
        event_id: z.string(),
        report_revision: z.number().int(),
        root_cause: z.string(),
        affected_component: z.string(),
        affected_knowledge_ids: z.array(z.string()).optional(),
        findings: z
          .array(
            z.object({ root_cause: z.string(), affected_component: z.string(), affected_knowledge_ids: z.array(z.string()) }).passthrough(),
          )
          .optional(),
      })
      .passthrough()
      .nullable(),
  })
  .passthrough();
/** The fields the effector uses (the identifier's answer may hold more; they are kept, not used). */
export interface IdentifierIncident {
  incident_id: string;
  state: string;
  /** The latest revision the identifier issued (staged before it is published). */
  report_revision: number;
  window_start: number;
  window_end: number;
  probes: { probe_id: string; probe_version: number; query: string }[];
  /** The incident's evidence ledger head as the identifier keeps it; absent from identifiers older than anchoring. */
  ledger_head?: { hash: string; seq: number } | undefined;
  /**
   * The report issued under that revision; null before the first. `affected_knowledge_ids` is absent
   * from identifiers older than the check (the report's ids are then taken as they are).
   */
  last_report: {
    event_id: string;
    report_revision: number;
    root_cause: string;
    affected_component: string;
    affected_knowledge_ids?: string[] | undefined;
    /** Each finding's cause, component and scope (several causes); absent from identifiers older than findings. */
    findings?: { root_cause: string; affected_component: string; affected_knowledge_ids: string[] }[] | undefined;
  } | null;
}

/** Where the effector checks a report: the identifier's own record of the incident, or null when it knows no such incident. */
export interface IdentifierRecords {
  incident(incidentId: string): Promise<IdentifierIncident | null>;
  /**
   * The identifier's verification of the incident's evidence ledger against `anchor`, the ledger head
   * a RootCauseReport carried (Kafka keeps it, outside the ledger's store): a ledger cut back behind
   * it does not verify. Absent: not checked.
   */
  verifyLedger?(incidentId: string, anchor: { seq: number; hash: string }): Promise<LedgerVerification>;
}

/** What the effector reads of GET /incidents/{id}/ledger/verify. */
export interface LedgerVerification {
  ok: boolean;
  problems: string[];
}

const LedgerVerificationSchema = z
  .object({ ok: z.boolean(), problems: z.array(z.object({ problem: z.string() }).passthrough()) })
  .passthrough();

/** The identifier could not be asked (down, timing out, refusing our token, answering nonsense): nothing can be checked. */
export class IdentifierUnreachableError extends Error {
  constructor(
    message: string,
    /** Worth another try (a timeout, a 503), not a refusal that would answer the same (a 401). */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'IdentifierUnreachableError';
  }
}

export interface IdentifierRecordClientOptions {
  baseUrl: string;
  /** The identifier's IDENTIFIER_API_TOKEN. */
  token?: string;
  timeoutMs: number;
  /** Tries per call (default 2), `backoffMs` × 2^n apart. */
  attempts?: number;
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** Statuses worth another try; any other non-2xx (401, 403: a wrong token) is not. */
const TRANSIENT = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Reads the identifier's record of an incident over its HTTP API (services never import each other).
 * 404 (and 400: not an incident id the identifier could have issued) answer null: no such incident.
 * Anything else that is not a well-formed record throws IdentifierUnreachableError after the tries.
 */
export class IdentifierRecordClient implements IdentifierRecords {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: IdentifierRecordClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  async incident(incidentId: string): Promise<IdentifierIncident | null> {
    return this.tried(() => this.once(incidentId));
  }

  async verifyLedger(incidentId: string, anchor: { seq: number; hash: string }): Promise<LedgerVerification> {
    return this.tried(() => this.verifyOnce(incidentId, anchor));
  }

  private async tried<T>(once: () => Promise<T | IdentifierUnreachableError>): Promise<T> {
    const attempts = this.options.attempts ?? 2;
    let last: IdentifierUnreachableError | null = null;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, (this.options.backoffMs ?? 250) * 2 ** (attempt - 1)));
      const outcome = await once();
      if (!(outcome instanceof IdentifierUnreachableError)) return outcome;
      last = outcome;
      if (!outcome.transient) break;
    }
    throw last ?? new IdentifierUnreachableError('identifier not asked');
  }

  private async verifyOnce(
    incidentId: string,
    anchor: { seq: number; hash: string },
  ): Promise<LedgerVerification | IdentifierUnreachableError> {
    const url = `${this.baseUrl}/incidents/${encodeURIComponent(incidentId)}/ledger/verify?anchor=${anchor.seq}:${encodeURIComponent(anchor.hash)}`;
    const fail = (message: string, transient: boolean) =>
      new IdentifierUnreachableError(`identifier ${this.baseUrl}: ${message}`, transient);
    let response: Response;
    try {
      response = await this.fetch(url, {
        headers: { accept: 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      return fail(error instanceof Error ? `${error.name}: ${error.message}` : String(error), true);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return fail(`HTTP ${response.status} for GET /incidents/{id}/ledger/verify`, TRANSIENT.has(response.status));
    }
    const parsed = LedgerVerificationSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) return fail('a ledger verification of unexpected shape', false);
    return { ok: parsed.data.ok, problems: parsed.data.problems.map((p) => p.problem) };
  }

  private async once(incidentId: string): Promise<IdentifierIncident | null | IdentifierUnreachableError> {
    const url = `${this.baseUrl}/incidents/${encodeURIComponent(incidentId)}?evidence=false`;
    const fail = (message: string, transient: boolean) =>
      new IdentifierUnreachableError(`identifier ${this.baseUrl}: ${message}`, transient);
    let response: Response;
    try {
      response = await this.fetch(url, {
        headers: { accept: 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      return fail(error instanceof Error ? `${error.name}: ${error.message}` : String(error), true);
    }
    if (response.status === 404 || response.status === 400) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return fail(`HTTP ${response.status} for GET /incidents/{id}`, TRANSIENT.has(response.status));
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      return fail(`an answer that is not JSON (${error instanceof Error ? error.message : String(error)})`, true);
    }
    const parsed = z.object({ incident: IdentifierIncidentSchema }).safeParse(body);
    if (!parsed.success)
      return fail(
        `an incident record of unexpected shape (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`,
        false,
      );
    if (parsed.data.incident.incident_id !== incidentId)
      return fail(`asked for ${incidentId}, answered ${parsed.data.incident.incident_id}`, false);
    return parsed.data.incident;
  }
}
