/**
 * A generator (prompt + model) with named versions, one of them in force: the chain calls whichever
 * is pinned, so pinning an earlier version (the generator_pin repair) takes effect on the next query.
 */
import { RunnableLambda, type RunnableInterface } from '@langchain/core/runnables';

export class PinnedGenerator<I, O> {
  private active: string;
  readonly runnable: RunnableInterface<I, O>;

  constructor(
    private readonly versions: Readonly<Record<string, RunnableInterface<I, O>>>,
    initial: string,
  ) {
    if (!(initial in versions)) throw new Error(`unknown generator version ${initial}: have ${Object.keys(versions).join(', ')}`);
    this.active = initial;
    this.runnable = RunnableLambda.from(async (input: I, config) => this.versions[this.active]!.invoke(input, config)).withConfig({
      runName: 'PinnedGenerator',
    }) as RunnableInterface<I, O>;
  }

  get version(): string {
    return this.active;
  }

  get availableVersions(): string[] {
    return Object.keys(this.versions);
  }

  /** Returns the version it replaced. */
  pin(version: string): string {
    if (!(version in this.versions))
      throw new RangeError(`unknown generator version ${version}: have ${this.availableVersions.join(', ')}`);
    const previous = this.active;
    this.active = version;
    return previous;
  }
}
