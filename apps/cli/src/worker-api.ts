import { errorBodyMessage, jsonOrUndefined } from '@rag-immune/contracts';
import type { Command } from 'commander';
import { CliError, ExitCode } from './exit-codes.ts';

export interface WorkerApiRequest {
  /** The worker's name, for the error a person reads ("effector unreachable at ..."). */
  worker: string;
  url: string;
  method: string;
  path: string;
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

/**
 * One JSON call to a worker's HTTP API with the CLI's exit codes: unreachable → 69, refused
 * token → 77, not found or refused request → 65, server error → 1. The token travels only in the
 * Authorization header and is never part of a message.
 */
export async function callWorkerApi<T>(request: WorkerApiRequest): Promise<T> {
  const base = request.url.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${base}${request.path}`, {
      method: request.method,
      signal: AbortSignal.timeout(request.timeoutMs),
      headers: {
        ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
  } catch (error) {
    throw new CliError(
      `${request.worker} unreachable at ${request.url}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.unavailable,
    );
  }
  const text = await response.text();
  const json = jsonOrUndefined(text);
  if (!response.ok) {
    const message = errorBodyMessage(json, text);
    const code =
      response.status === 401 || response.status === 403
        ? ExitCode.noPermission
        : response.status >= 500
          ? ExitCode.failure
          : ExitCode.dataError;
    throw new CliError(`${request.method} ${request.path}: HTTP ${response.status}: ${message}`, code);
  }
  return json as T;
}

/** The options every command that calls a worker's API takes: where it is, its token, JSON output. */
export interface WorkerApiOptions {
  url: string;
  token?: string;
  json: boolean;
}

/** Adds --url (default: env `urlEnv`, else `defaultUrl`), --token (default: env IMMUNE_API_TOKEN) and --json. */
export function withWorkerApiOptions(command: Command, worker: string, urlEnv: string, defaultUrl: string): Command {
  return command
    .option('--url <url>', `${worker} API (env ${urlEnv})`, process.env[urlEnv] ?? defaultUrl)
    .option('--token <token>', `${worker} API token (default: env IMMUNE_API_TOKEN)`)
    .option('--json', 'one JSON document on stdout', false);
}
