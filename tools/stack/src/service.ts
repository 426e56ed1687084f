import type { StackConfig } from './config.ts';

/** Everything a service module needs to install, start and probe one real server. */
export interface StackContext {
  readonly config: StackConfig;
  /** Absolute path of the repository root. */
  readonly repoRoot: string;
  /** `<repo>/.stack` (git-ignored): downloads, data and logs live below it. */
  readonly stackDir: string;
  /** `<stackDir>/<service name>`: this service's own data, config and log folder. */
  readonly serviceDir: string;
  /** Progress lines for the operator (stderr), never parsed by machines. */
  log(message: string): void;
}

/** How the supervisor launches a server once it is installed. */
export interface LaunchSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Run as this unix user (e.g. Elasticsearch refuses root). */
  user?: string;
}

/** One real server of the local stack. The supervisor owns pids, logs and health-waiting. */
export interface StackService {
  readonly name: string;
  /** Idempotent: downloads/unpacks on first use only. */
  install(ctx: StackContext): Promise<void>;
  /** One-time data preparation before the first start (e.g. Kafka storage format). Idempotent. */
  prepare?(ctx: StackContext): Promise<void>;
  launch(ctx: StackContext): Promise<LaunchSpec>;
  /** Resolves true once the server answers real requests. Must not throw for "not yet". */
  healthy(ctx: StackContext): Promise<boolean>;
  /** Work after the server is healthy (e.g. set the registry's global compatibility). Idempotent. */
  afterStart?(ctx: StackContext): Promise<void>;
  /** Where it listens, for `stack status`. */
  endpoint(ctx: StackContext): string;
  /** Generous cold-start limit in ms for health-waiting. */
  readonly startTimeoutMs: number;
}
