// Process entry of the `capibot` binary (bin/capibot.js): runs the CLI and sets the exit code.
import { main } from './main.ts';

process.exitCode = await main(process.argv);
