import { readFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { repoRoot } from './repo-root.ts';

/**
 * Local stack configuration. Defaults live here; `stack.config.json` at the repo root and
 * STACK_* environment variables override them. Non-default ports keep the stack from colliding
 * with anything else on a developer machine.
 */
export const StackConfigSchema = z
  .object({
    host: z.literal('127.0.0.1').default('127.0.0.1'),
    /** When the stack runs as root, its servers run as this system user (created on first use). */
    serverUser: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]*$/)
      .default('rag-immune'),
    kafka: z
      .object({
        version: z.string().default('4.1.2'),
        port: z.number().int().min(1024).max(65535).default(19092),
        controllerPort: z.number().int().min(1024).max(65535).default(19093),
        heapMb: z.number().int().min(256).default(1024),
      })
      .strict()
      .default({}),
    schemaRegistry: z
      .object({
        version: z.string().default('3.0.9'),
        port: z.number().int().min(1024).max(65535).default(18081),
        heapMb: z.number().int().min(256).default(512),
      })
      .strict()
      .default({}),
    elasticsearch: z
      .object({
        /**
         * Maven Central's integ-test-zip. 8.7.1 is the newest whose GET / (client ping()/info())
         * is still in server; from 8.9 that endpoint moved to a module this zip does not ship.
         */
        version: z.string().default('8.7.1'),
        port: z.number().int().min(1024).max(65535).default(19200),
        /** Node-to-node transport; bound on loopback only, fixed so it never lands on 9300. */
        transportPort: z.number().int().min(1024).max(65535).default(19300),
        heapMb: z.number().int().min(256).default(1024),
        /** Elasticsearch refuses to run as root; when the stack runs as root it runs as this user. */
        user: z
          .string()
          .regex(/^[a-z_][a-z0-9_-]*$/)
          .default('rag-immune-es'),
        /** JDK for Elasticsearch; default: the newest JDK under /usr/lib/jvm that this version supports. */
        javaHome: z.string().optional(),
      })
      .strict()
      .default({}),
    qdrant: z
      .object({
        /** REST (the workers' client); qdrant-local serves only this one. */
        port: z.number().int().min(1024).max(65535).default(16333),
        /** gRPC of the real server, bound on loopback. */
        grpcPort: z.number().int().min(1024).max(65535).default(16334),
      })
      .strict()
      .default({}),
    prometheus: z
      .object({
        port: z.number().int().min(1024).max(65535).default(19090),
        /** host:port targets of the workers' /metrics endpoints. */
        scrapeTargets: z.array(z.string()).default([]),
      })
      .strict()
      .default({}),
  })
  .strict();

export type StackConfig = z.infer<typeof StackConfigSchema>;

/** A configuration value that does not validate; the message names the exact key and its source. */
export class StackConfigError extends Error {
  override readonly name = 'StackConfigError';
}

/** `schemaRegistry` -> `SCHEMA_REGISTRY`, `heapMb` -> `HEAP_MB`. */
function envSegment(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** Name of the environment variable that overrides `section.key` (or a top-level `key`). */
export function stackEnvVarName(path: readonly string[]): string {
  return ['STACK', ...path.map(envSegment)].join('_');
}

/** The schema under any `.default()` wrappers, to learn what type an env string must become. */
function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  return schema instanceof z.ZodDefault ? unwrap(schema._def.innerType as z.ZodTypeAny) : schema;
}

/**
 * Env values are strings; turn them into what the schema expects. A value that does not look
 * like the expected type is passed through unchanged so that zod rejects it and names the key.
 */
function coerceEnvValue(schema: z.ZodTypeAny, raw: string): unknown {
  const target = unwrap(schema);
  if (target instanceof z.ZodNumber) return /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  if (target instanceof z.ZodArray) {
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
  return raw;
}

interface EnvOverrides {
  values: Record<string, unknown>;
  /** dotted key -> env var name, to name the source of a bad value. */
  sources: Map<string, string>;
}

/** Reads every STACK_<SECTION>_<KEY> the schema knows of; unknown STACK_* names are ignored. */
function readEnvOverrides(env: NodeJS.ProcessEnv): EnvOverrides {
  const values: Record<string, unknown> = {};
  const sources = new Map<string, string>();
  for (const [key, fieldSchema] of Object.entries(StackConfigSchema.shape)) {
    const field = unwrap(fieldSchema as z.ZodTypeAny);
    if (field instanceof z.ZodObject) {
      for (const [subKey, subSchema] of Object.entries(field.shape as z.ZodRawShape)) {
        const name = stackEnvVarName([key, subKey]);
        const raw = env[name];
        if (raw === undefined) continue;
        const section = (values[key] ??= {}) as Record<string, unknown>;
        section[subKey] = coerceEnvValue(subSchema, raw);
        sources.set(`${key}.${subKey}`, name);
      }
    } else {
      const name = stackEnvVarName([key]);
      const raw = env[name];
      if (raw === undefined) continue;
      values[key] = coerceEnvValue(fieldSchema as z.ZodTypeAny, raw);
      sources.set(key, name);
    }
  }
  return { values, sources };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** File values first, env values over them, section by section. */
function mergeOverrides(file: Record<string, unknown>, env: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...file };
  for (const [key, value] of Object.entries(env)) {
    const base = merged[key];
    merged[key] = isPlainObject(base) && isPlainObject(value) ? { ...base, ...value } : value;
  }
  return merged;
}

/**
 * The validated stack configuration: defaults, then `<repo>/stack.config.json`, then STACK_*
 * environment variables (e.g. STACK_KAFKA_PORT, STACK_SCHEMA_REGISTRY_HEAP_MB,
 * STACK_PROMETHEUS_SCRAPE_TARGETS=host:port,host:port). Refuses a bad value with a
 * StackConfigError that names the exact key and where it came from.
 */
export function loadStackConfig(root: string = repoRoot(), env: NodeJS.ProcessEnv = process.env): StackConfig {
  const filePath = `${root}/stack.config.json`;
  let fileValues: Record<string, unknown> = {};
  if (existsSync(filePath)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(filePath, 'utf8'));
    } catch (error) {
      throw new StackConfigError(`${filePath} is not valid JSON: ${(error as Error).message}`);
    }
    if (!isPlainObject(parsed)) throw new StackConfigError(`${filePath} must hold a JSON object`);
    fileValues = parsed;
  }
  const { values: envValues, sources } = readEnvOverrides(env);
  const result = StackConfigSchema.safeParse(mergeOverrides(fileValues, envValues));
  if (result.success) return result.data;

  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    const envName = sources.get(key);
    const source = envName ? `env ${envName}` : existsSync(filePath) ? filePath : 'defaults';
    if (issue.code === 'unrecognized_keys') {
      return `unknown key(s) ${issue.keys.map((k) => (key === '(root)' ? k : `${key}.${k}`)).join(', ')} in ${source}`;
    }
    return `${key}: ${issue.message} (from ${source})`;
  });
  throw new StackConfigError(`invalid stack configuration:\n  ${problems.join('\n  ')}`);
}
