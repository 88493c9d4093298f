/**
 * The dynamic SDK says what the definitions say (provider/schema/definitions.ts): its resource classes are generated from
 * them (`npm run gen`, scripts/lib/dynamic-sdk.mjs), and the committed files must be what the generator makes now; the
 * hand-written getProxiesOutput's arguments and result, and getProxyHealth's arguments, carry each definition's
 * description, word for word, as TSDoc.
 * The type check holds names and types; this holds the rest.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as definitions from "../../provider/schema/definitions";
import { GET_PROXIES, GET_PROXY_HEALTH } from "../../provider/schema/definitions";
import { REPO_ROOT } from "../helpers/pulumi";

type Fields = Readonly<Record<string, { description: string }>>;

/** The TSDoc of each member of the interface or class `name` in `file`, whitespace folded, tags left out. */
function documented(file: string, name: string): Record<string, string> {
  const source = ts.createSourceFile(file, readFileSync(join(REPO_ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found: Record<string, string> = {};
  const visit = (node: ts.Node): void => {
    if ((ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node)) && node.name?.text === name) {
      for (const member of node.members) {
        if (!member.name || !ts.isIdentifier(member.name) || !(ts.isPropertySignature(member) || ts.isPropertyDeclaration(member))) continue;
        const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
        found[member.name.text] = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "").join(" ").replace(/\s+/g, " ").trim();
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const folded = (fields: Fields) => Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.description.replace(/\s+/g, " ").trim()]));

describe("the dynamic SDK says what the definitions say", () => {
  it("its resource classes are what `npm run gen` makes of the definitions now", async () => {
    const { dynamicSdkFiles } = (await import(join(REPO_ROOT, "scripts", "lib", "dynamic-sdk.mjs"))) as {
      dynamicSdkFiles: (defs: typeof definitions) => Record<string, string>;
    };
    const files = dynamicSdkFiles(definitions);
    expect(Object.keys(files).sort()).toEqual(["dynamic-sdk/proxy-fleet.ts", "dynamic-sdk/proxy-order.ts"]);
    for (const [path, text] of Object.entries(files)) expect(readFileSync(join(REPO_ROOT, path), "utf8"), path).toBe(text);
  });

  it("a generated class documents each argument and output with its description", () => {
    expect(documented("dynamic-sdk/proxy-order.ts", "ProxyOrderArgs")).toEqual(folded(definitions.PROXY_ORDER.inputs));
    expect(documented("dynamic-sdk/proxy-fleet.ts", "ProxyFleet")).toEqual(folded({ ...definitions.PROXY_FLEET.inputs, ...definitions.PROXY_FLEET.outputs }));
  });

  it.each([
    ["GetProxiesOutputArgs", "dynamic-sdk/get-proxies.ts", GET_PROXIES.inputs],
    ["GetProxiesResult", "dynamic-sdk/get-proxies.ts", GET_PROXIES.outputs],
  ] as const)("getProxies: %s", (name, file, fields: Fields) => {
    expect(documented(file, name)).toEqual(folded(fields));
  });

  it("getProxyHealth: GetProxyHealthArgs (its result is the report's type, which the type check holds)", () => {
    expect(documented("dynamic-sdk/get-proxy-health.ts", "GetProxyHealthArgs")).toEqual(folded(GET_PROXY_HEALTH.inputs));
  });
});
