/**
 * The messages the troubleshooting page quotes are messages the package prints. A user searches that page for the
 * words on their screen; a message reworded in the code and not there would no longer be found. Each quoted message
 * is held to the string literals of the package's sources, values (numbers, quoted states, `...`, `N`) left out.
 * Messages of Pulumi, Node.js and TypeScript, which the page quotes too, are named below and left alone.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PENDING_ORDER_STATES, SPENT_ORDER_STATES, TARGET_ORDER_STATES } from "../../contract/states";
import { REPO_ROOT } from "../helpers/pulumi";

/** The first code span of each row whose symptom starts with one: a message as users see it. */
function quotedMessages(): string[] {
  const page = readFileSync(join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
  return page
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => /^\| `([^`]+)`/.exec(line)?.[1] ?? "");
}

/** Messages the page quotes that come from the tools around the package, not from it. */
const NOT_OURS = [
  "the stack is currently locked", // the Pulumi CLI
  "policy pack ... failed to start: could not read plugin ...: not supported", // the Pulumi engine
  "Cannot find module 'pulumi-proxy/provider'", // Node.js
  "TS6046", // TypeScript
  "no resource plugin 'pulumi-resource-proxy' found", // the Pulumi engine
  "/usr/bin/env: 'node': No such file or directory", // env(1), when the launcher finds no node
  "error downloading plugin proxy", // the Pulumi engine
  "pulumi", // the shell
];

/**
 * The text of every string the package's sources can print, as literal runs: a template's `${...}` and a
 * concatenation's non-literal operand end a run, adjacent literals joined by `+` are one.
 */
function literalRuns(): string[] {
  const runs: string[] = [];
  const fold = (text: string) => text.replace(/\s+/g, " ");
  const partsOf = (node: ts.Expression): Array<string | null> => {
    if (ts.isParenthesizedExpression(node)) return partsOf(node.expression);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...partsOf(node.left), ...partsOf(node.right)];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
    if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.flatMap((span) => [null, span.literal.text])];
    return [null];
  };
  const visit = (node: ts.Node): void => {
    const isRoot = !(node.parent && ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.PlusToken);
    if (isRoot && (ts.isBinaryExpression(node) || ts.isStringLiteral(node) || ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
      let run = "";
      for (const part of partsOf(node as ts.Expression)) {
        if (part === null) {
          runs.push(fold(run));
          run = "";
        } else run += part;
      }
      runs.push(fold(run));
    }
    ts.forEachChild(node, visit);
  };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
        visit(ts.createSourceFile(path, readFileSync(join(REPO_ROOT, path), "utf8"), ts.ScriptTarget.Latest, true));
      }
    }
  };
  for (const dir of ["contract", "client", "provider", "dynamic-sdk", "plugin", "policy", "policy-pack", "check", "sandbox", "tracing"]) walk(dir);
  return runs.filter((run) => run.trim() !== "");
}

/** Words the page gives as examples of what the code fills in: order states, and error codes such as ECONNREFUSED. */
const EXAMPLE_VALUES = new Set<string>([...PENDING_ORDER_STATES, ...TARGET_ORDER_STATES, ...SPENT_ORDER_STATES]);

/**
 * The words of a quoted message that are not values, in runs: a value (a number, a quoted or example value, `...`,
 * `N` or `M`) ends a run, as the code's `${...}` does.
 */
function wordRuns(message: string): string[][] {
  const runs: string[][] = [[]];
  for (const word of message.replace(/\.\.\./g, " ... ").split(/\s+/).filter(Boolean)) {
    const bare = word.replace(/^\W+|\W+$/g, "");
    const isValue = word === "..." || /^[NM]$/.test(word) || /\d|"/.test(word) || EXAMPLE_VALUES.has(bare) || /^E[A-Z]{3,}$/.test(bare);
    if (isValue) runs.push([]);
    else runs[runs.length - 1]!.push(word);
  }
  return runs.filter((run) => run.length > 0);
}

describe("the troubleshooting page", () => {
  const runs = literalRuns();
  const quoted = quotedMessages();

  it("quotes messages (the test would otherwise check nothing)", () => {
    expect(quoted.filter((m) => !NOT_OURS.includes(m)).length).toBeGreaterThanOrEqual(15);
  });

  it.each(quoted.filter((m) => !NOT_OURS.includes(m)))("quotes `%s` as the package prints it", (message) => {
    // Every run of words the page quotes between values is in one of the package's strings.
    for (const words of wordRuns(message)) {
      const text = words.join(" ");
      expect(runs.some((run) => run.includes(text)), `"${text}" of \`${message}\``).toBe(true);
    }
  });
});
