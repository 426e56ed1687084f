/** A request the service understood but refuses (400 invalid for this instance, 403 disabled here, 409 conflicting state). */
export class RequestRefusedError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 409,
  ) {
    super(message);
    this.name = 'RequestRefusedError';
  }
}
