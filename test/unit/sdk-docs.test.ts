/**
 * The dynamic SDK's documentation of each field is its definition's description (provider/definitions.ts), word for
 * word: the TSDoc of every argument and every declared output of ProxyOrder and ProxyFleet, and of getProxiesOutput's
 * arguments. The type check already holds their names and types to the definitions; this holds their words, so a
 * description changed in one place fails here until the other follows.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { GET_PROXIES, PROXY_FLEET, PROXY_ORDER } from "../../provider/definitions";
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

describe("the dynamic SDK's TSDoc is the definitions' descriptions", () => {
  it.each([
    ["ProxyOrderArgs", "dynamic-sdk/proxy-order.ts", PROXY_ORDER.inputs],
    ["ProxyOrder", "dynamic-sdk/proxy-order.ts", { ...PROXY_ORDER.inputs, ...PROXY_ORDER.outputs }],
    ["ProxyFleetArgs", "dynamic-sdk/proxy-fleet.ts", PROXY_FLEET.inputs],
    ["ProxyFleet", "dynamic-sdk/proxy-fleet.ts", { ...PROXY_FLEET.inputs, ...PROXY_FLEET.outputs }],
    ["GetProxiesOutputArgs", "dynamic-sdk/get-proxies.ts", GET_PROXIES.inputs],
    ["GetProxiesResult", "dynamic-sdk/get-proxies.ts", GET_PROXIES.outputs],
  ] as const)("%s", (name, file, fields: Fields) => {
    expect(documented(file, name)).toEqual(folded(fields));
  });
});
