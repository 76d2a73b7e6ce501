// `capibot convert IN OUT`: a recording between NDJSON (.ndjson, .ndjson.gz) and Parquet (.parquet),
// losslessly both ways (src/market/recording/convert.ts; the format: docs/data.md).
// The converter is imported when the command runs: its --help loads no Parquet code
// (test/cli/compiled.test.ts).
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { BadInputError } from '../../core/errors.ts';
import type { RegisterCommand } from '../command.ts';
import { checkOutputFile } from '../output-file.ts';

interface ConvertFlags {
  readonly force?: boolean;
}

export const registerConvert: RegisterCommand = (program: Command, ctx) => {
  program
    .command('convert')
    .description(
      'Convert a recording between NDJSON (.ndjson, .ndjson.gz) and Parquet (.parquet), by the file names. ' +
        'Lossless both ways: NDJSON → Parquet → NDJSON gives back the same text byte for byte (decompressed), ' +
        'meta line included; the Parquet file carries its sha256 and converting back checks it. ' +
        'Every line is checked as a backtest reads it; on error nothing is written.',
    )
    .option('--force', 'replace OUT when it exists (default: refuse)')
    .argument('<IN>', 'recording to read')
    .argument('<OUT>', 'recording to write')
    .action(async (input: string, out: string, flags: ConvertFlags) => {
      if (!existsSync(input)) throw new BadInputError('recording not found', input);
      checkOutputFile(out, flags.force);
      const { convertRecording } = await import('../../market/recording/convert.ts');
      const r = await convertRecording(input, out);
      ctx.out.info(`converted ${r.polls} polls: ${input} → ${out}`);
    });
};
