// Whether a script runs as the program (`node path/to/script.mjs`) rather than imported. Both paths are resolved to
// the real file: `import.meta.url` names it, but `process.argv[1]` keeps the path as typed, and in a clone reached
// through a symlink (a linked home or workspace folder) the two differ, so a plain comparison said "imported" and the
// script did nothing (scripts/lib/cache-root.mjs then printed no folder, and the CLI was built into `/`).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** True when the module at `moduleUrl` (its `import.meta.url`) is the script Node was started with. */
export function isMain(moduleUrl) {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
