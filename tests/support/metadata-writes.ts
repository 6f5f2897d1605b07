import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The files under a folder store's `.pressroom/`: path → size and mtime. */
export type MetadataFiles = Map<string, { size: number; mtimeMs: number }>;

/** What `.pressroom/` holds now (the build manifest's root and shards, the redirects, page inputs). */
export function metadataFiles(siteDir: string): MetadataFiles {
  const files: MetadataFiles = new Map();
  const dir = join(siteDir, ".pressroom");
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { size, mtimeMs } = statSync(path);
    files.set(path.slice(dir.length + 1), { size, mtimeMs });
  }
  return files;
}

/** Bytes of the files new or rewritten between `before` and `after` (a write replaces a file: a new mtime). */
export function metadataWritten(before: MetadataFiles, after: MetadataFiles): number {
  let bytes = 0;
  for (const [path, file] of after) {
    const was = before.get(path);
    if (!was || was.mtimeMs !== file.mtimeMs || was.size !== file.size) bytes += file.size;
  }
  return bytes;
}
