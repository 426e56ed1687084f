import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Maven coordinates; `type`/`classifier` select e.g. the `tar.gz:all` distribution of an app. */
export interface MavenCoordinate {
  groupId: string;
  artifactId: string;
  version: string;
  type?: string;
  classifier?: string;
}

export function coordinateString(c: MavenCoordinate): string {
  return [c.groupId, c.artifactId, c.version, c.type, c.classifier].filter(Boolean).join(':');
}

/**
 * Runs mvn in batch mode. Downloads are cached in ~/.m2 (shared by every checkout on the machine),
 * so a second install of the same version does not touch the network.
 */
async function runMaven(args: string[], cwd: string): Promise<void> {
  try {
    await execFileAsync('mvn', ['-B', '-q', ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error('Maven (mvn) is not installed; install it with: apt-get install -y maven');
    }
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`mvn ${args[0]} failed:\n${output}`);
  }
}

function dependencyXml(c: MavenCoordinate): string {
  return `<dependency><groupId>${c.groupId}</groupId><artifactId>${c.artifactId}</artifactId><version>${c.version}</version></dependency>`;
}

/**
 * Copies the given artifacts and their whole runtime closure into `outputDir` (jars only).
 * Resolves into a scratch folder first and renames at the end, so an interrupted install never
 * leaves a half-filled classpath behind.
 */
export async function copyRuntimeClasspath(
  dependencies: readonly MavenCoordinate[],
  outputDir: string,
  scratchParent: string,
): Promise<string[]> {
  await mkdir(scratchParent, { recursive: true });
  const scratch = await mkdtemp(join(scratchParent, 'maven-'));
  try {
    const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rag-immune.stack</groupId><artifactId>classpath</artifactId><version>0</version>
  <packaging>pom</packaging>
  <dependencies>${dependencies.map(dependencyXml).join('')}</dependencies>
</project>
`;
    await writeFile(join(scratch, 'pom.xml'), pom);
    const libs = join(scratch, 'libs');
    await runMaven(['dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${libs}`], scratch);
    await rm(outputDir, { recursive: true, force: true });
    await rename(libs, outputDir);
    return (await readdir(outputDir)).sort();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Downloads one artifact file (no dependencies) into `outputDir` and returns its path. */
export async function fetchArtifact(coordinate: MavenCoordinate, outputDir: string): Promise<string> {
  await mkdir(outputDir, { recursive: true });
  await runMaven(['dependency:copy', `-Dartifact=${coordinateString(coordinate)}`, `-DoutputDirectory=${outputDir}`], outputDir);
  const suffix = coordinate.classifier ? `-${coordinate.classifier}` : '';
  return join(outputDir, `${coordinate.artifactId}-${coordinate.version}${suffix}.${coordinate.type ?? 'jar'}`);
}
