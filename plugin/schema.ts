/**
 * The plugin's Pulumi package schema. `plugin/schema.json` is its source: the SDKs under `sdk/<language>` are
 * generated from it by `npm run gen`, with the package's version filled in, as here.
 */
import { VERSION } from "../client";
import schema from "./schema.json";

/** The schema as the engine and the SDK generator receive it. */
export function schemaText(): string {
  return JSON.stringify({ ...schema, version: VERSION });
}
