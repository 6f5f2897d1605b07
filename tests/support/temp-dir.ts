import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";

/** A fresh folder inside the work tree's .tmp (TMPDIR), removed by the returned cleanup. */
export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const base = process.env.TMPDIR ?? join(process.cwd(), ".tmp");
  const path = await mkdtemp(join(base, `${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
