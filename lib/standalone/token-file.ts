import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Writes a secret to `file` readable by its owner only, in one step: the
 * text goes to a new file created exclusively (`wx`: never an existing file
 * or a link someone placed there) with mode 600, which is then renamed over
 * `file`. A reader sees the old file or the whole new one, never a missing,
 * empty or half-written one, and no other file is ever written through a
 * link at `file`.
 */
export function writeSecretFile(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: "wx" });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
