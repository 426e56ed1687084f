import { z } from 'zod';

const IncidentList = z.object({ incidents: z.array(z.object({ incident_id: z.string(), state: z.string() }).passthrough()) });

/**
 * Whether an incident is open, from the identifier's own record (its GET /incidents), as the effector
 * reads it: every state but `closed` is an incident still under way. Null when the identifier cannot
 * say (unreachable, refused, unreadable): the rotation then waits rather than guess.
 */
export class IdentifierIncidents {
  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly timeoutMs = 10_000,
  ) {}

  async open(): Promise<string[] | null> {
    try {
      const response = await fetch(`${this.url.replace(/\/+$/, '')}/incidents`, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: this.token === undefined ? {} : { authorization: `Bearer ${this.token}` },
      });
      if (!response.ok) return null;
      const parsed = IncidentList.safeParse(await response.json());
      if (!parsed.success) return null;
      return parsed.data.incidents.filter((i) => i.state !== 'closed').map((i) => i.incident_id);
    } catch {
      return null;
    }
  }
}
