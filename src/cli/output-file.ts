// The file a command is about to write (a recording): refused before any work when it is a folder,
// exists without --force, or its folder does not exist.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BadInputError } from '../core/errors.ts';

export function checkOutputFile(out: string, force: boolean | undefined): void {
  if (existsSync(out) && statSync(out).isDirectory())
    throw new BadInputError('is a folder: name the recording file to write', out);
  if (force !== true && existsSync(out))
    throw new BadInputError('file exists (use --force to replace it)', out);
  const parent = dirname(resolve(out));
  if (!existsSync(parent) || !statSync(parent).isDirectory())
    throw new BadInputError(`the folder ${parent} does not exist`, out);
}
