import { Command, CommanderError } from 'commander';
import { eventsCommand } from './commands/events.ts';
import { probesCommand } from './commands/probes.ts';
import { ragCommand } from './commands/rag.ts';
import { fcsCommand } from './commands/fcs.ts';
import { casesCommand } from './commands/cases.ts';
import { baselineCommand } from './commands/baseline.ts';
import { actionsCommand, effectorCommand, grantsCommand, reopenCommand, rollbackCommand, snapshotsCommand } from './commands/effector.ts';
import { incidentsCommand, ledgerCommand } from './commands/incidents.ts';
import { CliError, ExitCode } from './exit-codes.ts';

const program = new Command('immune')
  .description('RAG Immune: inspect and steer the self-healing system of a production RAG')
  .version('0.1.0')
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

program.addCommand(eventsCommand());
program.addCommand(probesCommand());
program.addCommand(ragCommand());
program.addCommand(fcsCommand());
program.addCommand(casesCommand());
program.addCommand(baselineCommand());
for (const command of [incidentsCommand(), ledgerCommand()]) program.addCommand(command);
for (const command of [rollbackCommand(), reopenCommand(), snapshotsCommand(), actionsCommand(), grantsCommand(), effectorCommand()])
  program.addCommand(command);

// addCommand() does not pass exitOverride down; every level must throw instead of exiting so
// usage errors map to one exit code below.
const overrideExits = (command: Command): void => {
  command.exitOverride();
  command.commands.forEach(overrideExits);
};
overrideExits(program);

// `immune events tail --json | head` closes the pipe early; that is a normal end, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(ExitCode.ok);
  throw error;
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version arrive here too, with exit code 0.
    process.exit(error.exitCode === 0 ? ExitCode.ok : ExitCode.usage);
  }
  if (error instanceof CliError) {
    process.stderr.write(`immune: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`immune: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(ExitCode.failure);
}
