// The tables of docs/resources.md, made from the descriptions of provider/schema/definitions.ts: every input, output and
// property with its type, default and description, written once there. A table's place in the page is a pair of
// markers, `<!-- reference: <name> <part> -->` and `<!-- /reference -->`, where <name> is a resource, function or
// object type (`ProxyOrder`, `getProxies`, `ProxyInfo`) and <part> is `inputs`, `outputs` or `properties`; the prose
// around the tables is the page's own. `npm run gen` rewrites the tables; a unit test fails when they are
// stale.

/** What a field's presence shows in the Default column of an input. */
function defaultCell(field) {
  if (field.default !== undefined) return `\`${JSON.stringify(field.default)}\``;
  if (field.presence === "defaulted") return "derived";
  if (field.presence === "optional") return "optional";
  return "required";
}

/** A description as one table cell: whitespace folded, pipes escaped, the docs it names linked from docs/. */
function descriptionCell(text) {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\|/g, "\\|")
    .replace(/\bdocs\/([\w-]+\.md)\b/g, "[$1]($1)");
}

/** One markdown table: a header row, its rule, and a row per entry. */
function table(header, rows) {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");
}

/** The table of one part of a resource, function or object type. */
function partTable(part, fields, isFunction, shownAs) {
  const entries = Object.entries(fields);
  if (part === "inputs") {
    return table(
      [isFunction ? "Argument" : "Input", "Type", "Default", "Description"],
      entries.map(([name, f]) => [`\`${name}\``, `\`${shownAs(f.type)}\``, defaultCell(f), descriptionCell(f.description)]),
    );
  }
  const secret = (f) => (f.secret ? " **Always secret.**" : "");
  return table(
    [part === "outputs" ? "Output" : "Property", "Type", "Description"],
    entries.map(([name, f]) => [
      `\`${name}\``,
      `\`${shownAs(f.type)}\`${f.presence === "nullable" ? ", or null" : f.presence === "optional" ? ", may be absent" : ""}`,
      descriptionCell(f.description) + (/always secret/i.test(f.description) ? "" : secret(f)),
    ]),
  );
}

/**
 * The page with every marked table made again from `definitions` (the module provider/schema/definitions.ts); throws on a
 * marker that names nothing there.
 */
export function withReferenceTables(page, definitions) {
  const { RESOURCES, FUNCTIONS, OBJECT_TYPES } = definitions;
  const named = new Map();
  for (const spec of [...RESOURCES, ...FUNCTIONS]) named.set(spec.token.split(":").pop(), { spec, isFunction: FUNCTIONS.includes(spec) });
  for (const [name, spec] of Object.entries(OBJECT_TYPES)) named.set(name, { spec: { properties: spec.properties }, isFunction: false });
  // An object type is shown by the name its schema token gives it (FleetProxy is a ProxyInfo there).
  const shownAs = (type) => type.replace(/^\w+/, (name) => (OBJECT_TYPES[name] ? OBJECT_TYPES[name].token.split(":").pop() : name));
  return page.replace(/(<!-- reference: (\w+) (inputs|outputs|properties) -->\n)[\s\S]*?(<!-- \/reference -->)/g, (_, open, name, part, close) => {
    const found = named.get(name);
    const fields = found?.spec[part];
    if (!fields) throw new Error(`docs: a reference marker names ${name} ${part}, which provider/schema/definitions.ts does not describe`);
    return `${open}${partTable(part, fields, found.isFunction, shownAs)}\n${close}`;
  });
}
