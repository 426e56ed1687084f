import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CCOMPAT_PATH } from '../endpoints.ts';
import { javaBinary, jvmMemoryArgs } from '../java.ts';
import { fetchArtifact } from '../maven-artifacts.ts';
import type { StackContext, StackService } from '../service.ts';

const execFileAsync = promisify(execFile);

/** The rule every topic's `<topic>-value` subject is held to (see docs/ARCHITECTURE). */
export const GLOBAL_COMPATIBILITY = 'BACKWARD';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

function paths(ctx: StackContext) {
  const app = join(ctx.serviceDir, `app-${ctx.config.schemaRegistry.version}`);
  return { app, downloads: join(ctx.serviceDir, 'downloads'), data: join(ctx.serviceDir, 'data') };
}

function baseUrl(ctx: StackContext): string {
  return `http://${ctx.config.host}:${ctx.config.schemaRegistry.port}${CCOMPAT_PATH}`;
}

/** Apicurio 3.0.x ships a legacy `*-runner.jar`; later 3.x ship Quarkus' fast-jar `quarkus-run.jar`. */
async function runnerJar(appDir: string): Promise<string> {
  if (existsSync(join(appDir, 'quarkus-run.jar'))) return join(appDir, 'quarkus-run.jar');
  const runner = (await readdir(appDir)).find((f) => f.endsWith('-runner.jar'));
  if (!runner) throw new Error(`no quarkus-run.jar or *-runner.jar in ${appDir}; delete it and run up again`);
  return join(appDir, runner);
}

export const schemaRegistry: StackService = {
  name: 'schema-registry',
  startTimeoutMs: 120_000,

  async install(ctx) {
    const p = paths(ctx);
    if (existsSync(p.app)) return;
    const version = ctx.config.schemaRegistry.version;
    ctx.log(`schema-registry: fetching io.apicurio:apicurio-registry-app:${version}:tar.gz:all from Maven Central`);
    const tarball = await fetchArtifact(
      { groupId: 'io.apicurio', artifactId: 'apicurio-registry-app', version, type: 'tar.gz', classifier: 'all' },
      p.downloads,
    );
    // Unpack beside the final folder and rename, so a broken unpack is never mistaken for an install.
    const staging = `${p.app}.partial`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await execFileAsync('tar', ['-xzf', tarball, '-C', staging]);
    await rename(staging, p.app);
    await rm(p.downloads, { recursive: true, force: true }); // ~100 MB; ~/.m2 keeps a copy anyway.
  },

  async launch(ctx) {
    const p = paths(ctx);
    await mkdir(p.data, { recursive: true });
    const { host } = ctx.config;
    const { port, heapMb } = ctx.config.schemaRegistry;
    const settings: Record<string, string> = {
      'quarkus.http.host': host,
      'quarkus.http.port': String(port),
      // The default is an in-memory H2 that forgets every schema on restart; a file keeps them.
      'apicurio.storage.kind': 'sql',
      'apicurio.storage.sql.kind': 'h2',
      'apicurio.datasource.url': `jdbc:h2:file:${join(p.data, 'registry')}`,
      // Default pool starts 20 connections; a dev registry needs a handful.
      'apicurio.datasource.jdbc.initial-size': '2',
      'apicurio.datasource.jdbc.min-size': '2',
      'apicurio.datasource.jdbc.max-size': '20',
      // Tests clean up their subjects (DELETE through ccompat); off by default in Apicurio 3.
      'apicurio.rest.deletion.artifact.enabled': 'true',
      'apicurio.rest.deletion.artifact-version.enabled': 'true',
      'apicurio.rest.deletion.group.enabled': 'true',
      'quarkus.http.access-log.enabled': 'false',
    };
    return {
      command: javaBinary(),
      args: [
        ...jvmMemoryArgs(heapMb),
        ...Object.entries(settings).map(([key, value]) => `-D${key}=${value}`),
        '-jar',
        await runnerJar(p.app),
      ],
      cwd: ctx.serviceDir,
    };
  },

  async healthy(ctx) {
    try {
      const response = await fetch(`${baseUrl(ctx)}/subjects`, { signal: AbortSignal.timeout(2000) });
      return response.status === 200;
    } catch {
      return false;
    }
  },

  /** Sets the GLOBAL rule through the ccompat API and reads it back; Apicurio enforces it on register. */
  async afterStart(ctx) {
    const put = await fetch(`${baseUrl(ctx)}/config`, {
      method: 'PUT',
      headers: { 'content-type': CONTENT_TYPE },
      body: JSON.stringify({ compatibility: GLOBAL_COMPATIBILITY }),
      signal: AbortSignal.timeout(5000),
    });
    if (!put.ok) throw new Error(`schema-registry: PUT /config answered ${put.status}: ${await put.text()}`);
    const get = await fetch(`${baseUrl(ctx)}/config`, { signal: AbortSignal.timeout(5000) });
    const body = (await get.json()) as { compatibilityLevel?: string; compatibility?: string };
    const level = body.compatibilityLevel ?? body.compatibility;
    if (level !== GLOBAL_COMPATIBILITY) {
      throw new Error(`schema-registry: global compatibility reads back as ${JSON.stringify(body)}, expected ${GLOBAL_COMPATIBILITY}`);
    }
  },

  endpoint(ctx) {
    return baseUrl(ctx);
  },
};
