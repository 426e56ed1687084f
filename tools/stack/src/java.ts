import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The java binary for the JVM servers: $JAVA_HOME/bin/java when set, else `java` on PATH
 * (Java 17 on the project machines; Kafka 4.x and Apicurio 3.x both run on 17).
 */
export function javaBinary(): string {
  const home = process.env['JAVA_HOME'];
  if (home && existsSync(join(home, 'bin', 'java'))) return join(home, 'bin', 'java');
  return 'java';
}

/** Heap and GC flags shared by every JVM server: fixed heap so the stack's footprint is predictable. */
export function jvmMemoryArgs(heapMb: number): string[] {
  return [`-Xms${heapMb}m`, `-Xmx${heapMb}m`, '-XX:+UseG1GC', '-XX:+ExitOnOutOfMemoryError', '-Djava.awt.headless=true'];
}
