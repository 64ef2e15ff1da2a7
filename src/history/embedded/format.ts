// The version of the embedded store's directory format, in `history/FORMAT`.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FORMAT_FILE = 'FORMAT';
export const FORMAT_VERSION = 2;

/** Create the format file in an empty directory; refuse any other format, naming the directory. */
export function checkFormat(dir: string): void {
  const file = path.join(dir, FORMAT_FILE);
  if (!existsSync(file)) {
    if (readdirSync(dir).length)
      throw new Error(
        `${dir} holds files but no ${FORMAT_FILE}: not an edgeblocks history directory this version can read (move it aside to start afresh)`,
      );
    writeFileSync(file, `${FORMAT_VERSION}\n`);
    return;
  }
  const version = readFileSync(file, 'utf8').trim();
  if (version !== String(FORMAT_VERSION))
    throw new Error(
      `${dir} holds history format ${version}; this edgeblocks reads format ${FORMAT_VERSION} (nothing was changed; move it aside to start afresh)`,
    );
}
