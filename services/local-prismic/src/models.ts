import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CustomTypeModel, SharedSliceModel } from "@prismicio/client";

export type Models = {
  customTypes: CustomTypeModel[];
  slices: SharedSliceModel[];
};

/** Where Slice Machine keeps the custom types, relative to the project's folder. */
export const CUSTOM_TYPES_DIR = "customtypes";
/** The slice libraries of a project without `slicemachine.config.json`: this repository's layout. */
const DEFAULT_SLICE_LIBRARIES = [join("web", "slices")];

/**
 * The slice libraries of the Slice Machine project in `rootDir`, relative to it: the `libraries`
 * of its `slicemachine.config.json` (`./web/slices` here).
 */
export function sliceLibraries(rootDir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(rootDir, "slicemachine.config.json"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return DEFAULT_SLICE_LIBRARIES;
    throw error;
  }
  const { libraries } = JSON.parse(text) as { libraries?: unknown };
  if (!Array.isArray(libraries)) return DEFAULT_SLICE_LIBRARIES;
  return libraries.filter((library): library is string => typeof library === "string").map((l) => join(l));
}

/**
 * Reads the Slice Machine files of the project in `rootDir` from disk. Only files are read, so that
 * the content service stays independent of the site's code. Entries are sorted by id: directory
 * order differs between file systems and the generated types must not.
 */
export function loadModels(rootDir: string): Models {
  const customTypes = readJsonFiles<CustomTypeModel>(join(rootDir, CUSTOM_TYPES_DIR), "index.json");
  const slices = sliceLibraries(rootDir).flatMap((library) =>
    readJsonFiles<SharedSliceModel>(join(rootDir, library), "model.json"),
  );
  for (const slice of slices) {
    if (slice.type !== "SharedSlice") {
      throw new Error(`Slice model "${slice.id}" has type "${slice.type}"; only SharedSlice is supported.`);
    }
  }
  return { customTypes: sortById(customTypes), slices: sortById(slices) };
}

function readJsonFiles<T>(dir: string, fileName: string): T[] {
  const out: T[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, fileName);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      // A slice folder may legitimately hold only a component while it is being written.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    try {
      out.push(JSON.parse(text) as T);
    } catch (error) {
      throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  return out;
}

function sortById<T extends { id: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The models as they are on disk now, for a service that runs while they are edited: Slice Machine
 * adds a slice folder and a choice to a custom type, and the next edit may use them.
 */
export interface ModelSource {
  /** The models, read again first when a model file was added, removed or changed since. */
  current(): Models;
  /** The models last read, without looking at the files. */
  last(): Models;
}

/**
 * Reads the models from `rootDir` and again whenever their files change. Decision: each `current()`
 * compares the model files' sizes, mtimes and inodes with those of the last read (two readdirs and
 * one stat per model, a few dozen microseconds) rather than watching: file watchers miss changes on
 * bind mounts and network file systems, need a recursive watch for new slice folders, and hold
 * inotify watches. Callers ask on edits and the API root only, never per search.
 *
 * Models that cannot be read (a file saved half-way, invalid JSON) leave the last good ones in force;
 * `onError` hears of each broken state once. The first read throws, as the service cannot start
 * without models.
 */
export function modelsFromFiles(
  rootDir: string,
  events: { onReload?: (models: Models) => void; onError?: (error: Error) => void } = {},
): ModelSource {
  let stamp = modelStamp(rootDir);
  let models = loadModels(rootDir);
  let broken: string | undefined;
  return {
    current() {
      let now: string;
      try {
        now = modelStamp(rootDir);
      } catch (error) {
        // A model folder gone for a moment (a branch being checked out): as a file that cannot be read.
        now = `unreadable: ${(error as Error).message}`;
      }
      if (now === stamp || now === broken) return models;
      try {
        models = loadModels(rootDir);
        stamp = now;
        broken = undefined;
        events.onReload?.(models);
      } catch (error) {
        broken = now;
        events.onError?.(error as Error);
      }
      return models;
    },
    last: () => models,
  };
}

/** What changes when a model file is added, removed, rewritten or replaced (size, mtime, inode). */
function modelStamp(rootDir: string): string {
  const parts: string[] = [];
  const folders = [
    [CUSTOM_TYPES_DIR, "index.json"],
    ...sliceLibraries(rootDir).map((library) => [library, "model.json"]),
  ];
  for (const [dir, fileName] of folders as [string, string][]) {
    const base = join(rootDir, dir);
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const stat = statSync(join(base, entry.name, fileName), { throwIfNoEntry: false, bigint: true });
      if (stat) parts.push(`${dir}/${entry.name} ${stat.size} ${stat.mtimeNs} ${stat.ino}`);
    }
  }
  return parts.sort().join("\n");
}
