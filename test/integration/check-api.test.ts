/**
 * The contract check (check/): against the sandbox every assumption holds; against servers that deviate
 * (test/helpers/deviant-api.ts) each deviation is reported with its effect, and the breaking ones fail the command.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { anyBreaking, checkApi, nothingChecked, type Finding } from "../../check/assumptions";
import { runCheckCommand } from "../../check/cli";
import { startDeviantApi, type DeviantApi, type Deviation } from "../helpers/deviant-api";
import { startLimiterFront, type LimiterMode } from "../../scripts/lib/limiter-front.mjs";
import { REPO_ROOT } from "../helpers/pulumi";
import { sandboxClock, useSandbox } from "../helpers/sandbox";
import { startSandbox, type SandboxOptions } from "../../sandbox";
import { ProxyApiClient } from "../../client";

const sandbox = useSandbox({ rateLimit: { requestsPerSecond: 1000, burst: 1000 } });
let deviant: DeviantApi | undefined;
afterEach(async () => {
  await deviant?.stop();
  deviant = undefined;
});

/** The sandbox's time moves instead of the test waiting. */
const clock = sandboxClock(() => sandbox.current);

const check = (baseUrl: string, buy?: string) => checkApi({ baseUrl, apiKey: sandbox.current.apiKey, buy, clock, readyTimeoutMs: 60_000 });
const differing = (findings: Finding[]) => findings.filter((f) => f.holds === false).map((f) => ({ assumption: f.assumption, breaking: f.breaking }));
const about = (findings: Finding[], words: string) => findings.find((f) => f.assumption.includes(words));

describe("check-api", () => {
  it("against the sandbox: every assumption holds, read-only and with a purchase", async () => {
    const readOnly = await check(sandbox.current.url);
    expect(differing(readOnly)).toEqual([]);
    expect(sandbox.current.createdOrders).toEqual([]);
    const bought = await check(sandbox.current.url, "dc-us-5");
    expect(differing(bought)).toEqual([]);
    expect(bought.filter((f) => f.holds === null)).toEqual([]);
    expect(sandbox.current.createdOrders).toHaveLength(1);
    expect(about(bought, "The list comes in pages")?.seen).toMatch(/answered 200.*then.*answered 200/);
  });

  it("a server that ignores Idempotency-Key: breaking, in words a user cannot miss, and two orders bought", async () => {
    deviant = await startDeviantApi(sandbox.current, "ignores-idempotency-key");
    const findings = await check(deviant.url, "dc-us-5");
    const replay = about(findings, "Idempotency-Key");
    expect(replay).toMatchObject({ holds: false, breaking: true });
    expect(replay?.effect).toMatch(/^THIS SERVER IGNORES Idempotency-Key/);
    expect(replay?.seen).toContain(sandbox.current.createdOrders[1]?.id);
    expect(sandbox.current.createdOrders).toHaveLength(2);
    expect(anyBreaking(findings)).toBe(true);
  });

  it("names the form of rate-limit hints it saw, and what hints that come only with 429s cost", async () => {
    const forms: Array<[SandboxOptions, boolean, RegExp]> = [
      [{ rateLimitHintForm: "ietf-draft" }, true, /IETF draft.*on \d+ of \d+ successful answers/],
      [{ rateLimitHintForm: "ietf-draft-7" }, true, /draft-07 dictionary/],
      [{ rateLimitHintForm: "x-ratelimit" }, true, /GitHub's/],
      [{ rateLimitHintForm: "x-rate-limit" }, true, /Okta's/],
      [{ rateLimitHints: "on-429" }, false, /^no answer carried rate-limit hints/],
    ];
    for (const [options, holds, seen] of forms) {
      const other = await startSandbox({ rateLimit: { requestsPerSecond: 1000, burst: 1000 }, ...options });
      try {
        const findings = await checkApi({ baseUrl: other.url, apiKey: other.apiKey, clock: sandboxClock(() => other), readyTimeoutMs: 60_000 });
        const hints = about(findings, "rate-limit hints");
        expect(hints, JSON.stringify(options)).toMatchObject({ holds, breaking: false });
        expect(hints?.seen).toMatch(seen);
        if (!holds) expect(hints?.effect).toMatch(/some of them.*proxy:maxRateShare/);
        expect(anyBreaking(findings)).toBe(false);
      } finally {
        await other.stop();
      }
    }
  });

  it("behind express-rate-limit, names the form it read in each of the library's header modes", async () => {
    const modes: Array<[LimiterMode, RegExp]> = [
      ["legacy", /GitHub's/],
      ["draft-6", /the contract's/],
      ["draft-7", /draft-07 dictionary/],
      ["draft-8", /structured fields/],
    ];
    for (const [mode, form] of modes) {
      const front = await startLimiterFront(sandbox.current.url, { mode, limit: 1000, windowMs: 10_000 });
      try {
        const findings = await checkApi({ baseUrl: front.url, apiKey: sandbox.current.apiKey, clock: sandboxClock(() => sandbox.current), readyTimeoutMs: 60_000 });
        expect(about(findings, "rate-limit hints"), mode).toMatchObject({ holds: true, seen: expect.stringMatching(form) });
      } finally {
        await front.stop();
      }
    }
  });

  it("names a rate-limit header it could not read, with its value, as the reader's gap", async () => {
    deviant = await startDeviantApi(sandbox.current, "unknown-hint-form");
    const hints = about(await check(deviant.url), "rate-limit hints");
    expect(hints).toMatchObject({ holds: false, breaking: false });
    expect(hints?.seen).toMatch(/`x-ratelimit-budget: 100\/60s` on \d+ answers, in a form the provider's reader does not know/);
    expect(hints?.effect).toMatch(/^The reader, not the API, is the gap/);
  });

  it("a server that compresses every answer with gzip: read as the client reads it, nothing breaks", async () => {
    deviant = await startDeviantApi(sandbox.current, "gzip-always");
    const findings = await check(deviant.url, "dc-us-5");
    expect(anyBreaking(findings), JSON.stringify(findings, null, 1)).toBe(false);
    expect(about(findings, "becomes `active`")).toMatchObject({ holds: true });
  });

  it("a key refused as a Bearer token but taken as X-Api-Key: a breaking difference that names the header (exit 1), not nothing checked", async () => {
    deviant = await startDeviantApi(sandbox.current, "x-api-key-quiet");
    const findings = await check(deviant.url);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ holds: false, breaking: true, seen: expect.stringMatching(/accepted as `X-Api-Key: <key>`/) });
    expect(findings[0]?.effect).toMatch(/takes the key as `X-Api-Key: <key>`; the provider sends only/);
    expect(JSON.stringify(findings)).not.toContain(sandbox.current.apiKey);
    expect(anyBreaking(findings)).toBe(true);
    expect(nothingChecked(findings)).toBe(false);
  });

  const cases: Array<[Deviation, string, boolean, RegExp]> = [
    ["camel-case", "snake_case", false, /^Works: a field the contract names is read in camelCase too/],
    ["other-state-names", "contract's states", true, /state "(processing|ready)", which this provider does not know/],
    ["plain-text-errors", "problem+json", false, /told apart by status alone/],
    ["created-as-200", "`201`", false, /any 2xx/],
    ["location-only-purchase", "`201`", false, /^Works: a purchase's answer cannot be read .*, but it names the order it made \(ord_\S+\), which is then read by id/],
    ["unreadable-orders", "becomes `active`", true, /^Every read of an order fails, naming what its answer lacks/],
    ["order-without-plan-id", "names the plan", false, /^Works with something lost: .*`pulumi import` cannot tell an order's plan/],
    ["list-without-pages", "in pages", false, /whole list in one page/],
    ["usage-in-gigabytes", "GET /v1/usage` answers", true, /getUsage fails, with: .*bandwidth/],
    ["x-api-key-auth", "Authorization: Bearer", true, /Every operation fails, with: .*401/],
    ["integer-ids", "contract's forms", false, /^Works: the provider reads each as the contract's form/],
    ["data-envelope", "contract's forms", false, /^Works: the provider reads each as the contract's form/],
    ["order-without-proxies", "becomes `active`", false, /^Works while the list shows them with their `order_id`/],
  ];
  it.each(cases)("a server with %s: reported with its effect (breaking: %s)", async (deviation, words, breaking, effect) => {
    deviant = await startDeviantApi(sandbox.current, deviation);
    const findings = await check(deviant.url, "dc-us-5");
    const finding = about(findings, words);
    expect(finding, JSON.stringify(findings, null, 1)).toMatchObject({ holds: false, breaking });
    expect(finding?.effect).toMatch(effect);
    expect(anyBreaking(findings)).toBe(breaking);
    expect(sandbox.current.createdOrders.length).toBeLessThanOrEqual(1);
  });

  it("a server that pages the list by Link header: says the header's cursor is followed, and getProxies reads every page", async () => {
    deviant = await startDeviantApi(sandbox.current, "link-pages");
    const findings = await check(deviant.url, "dc-us-5");
    const finding = about(findings, "in pages");
    expect(finding, JSON.stringify(findings, null, 1)).toMatchObject({ holds: false, breaking: false });
    expect(finding?.seen).toMatch(/a Link header naming the next page$/);
    expect(finding?.effect).toMatch(/^Works: the cursor of the next page the Link header names is followed/);
    const client = new ProxyApiClient({ baseUrl: deviant.url, apiKey: sandbox.current.apiKey });
    const everything = await new ProxyApiClient({ baseUrl: sandbox.current.url, apiKey: sandbox.current.apiKey }).listProxies();
    expect((await client.listProxies({ pageSize: 2 })).map((p) => p.ip).sort()).toEqual(everything.map((p) => p.ip).sort());
    expect(everything.length).toBeGreaterThan(2);
  });

  it("a server that writes the contract's states in upper case: holds, and says they are read as the contract's", async () => {
    deviant = await startDeviantApi(sandbox.current, "upper-case-states");
    const findings = await check(deviant.url, "dc-us-5");
    const finding = about(findings, "contract's states");
    expect(finding, JSON.stringify(findings, null, 1)).toMatchObject({ holds: true, breaking: true });
    expect(finding?.seen).toMatch(/PENDING -> .*ACTIVE/);
    expect(finding?.effect).toMatch(/^Works: "PENDING", .*"ACTIVE" read as the contract's pending, .*active\.$/);
    expect(about(findings, "becomes `active`")).toMatchObject({ holds: true });
    expect(anyBreaking(findings)).toBe(false);
  });

  it("names each form other than the contract's that records came in", async () => {
    for (const [deviation, form] of [["integer-ids", "`id` as a number"], ["data-envelope", "the record inside an envelope"]] as const) {
      deviant = await startDeviantApi(sandbox.current, deviation);
      const finding = about(await check(deviant.url, "dc-us-5"), "contract's forms");
      expect(finding?.seen, deviation).toContain(form);
      await deviant.stop();
      deviant = undefined;
    }
  });

  it("the command: --json prints { assumption, holds, breaking, seen, effect }, exit 0, and never the key", async () => {
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void out.push(t), env: { PROXY_API_KEY: sandbox.current.apiKey }, stackConfig: () => ({ missing: "not set" }) };
    expect(await runCheckCommand(["--base-url", sandbox.current.url, "--json"], io)).toBe(0);
    const findings = JSON.parse(out.join("")) as Finding[];
    expect(Object.keys(findings[0] ?? {})).toEqual(["assumption", "holds", "breaking", "seen", "effect"]);
    expect(out.join("")).not.toContain(sandbox.current.apiKey);
  });

  it("the command: exit 1 on a breaking difference, 2 without settings, and the stack's config as fallback", async () => {
    deviant = await startDeviantApi(sandbox.current, "x-api-key-auth");
    const out: string[] = [];
    const io = (env: NodeJS.ProcessEnv, config: Record<string, string> = {}) => ({
      out: (t: string) => void out.push(t),
      err: (t: string) => void out.push(t),
      env,
      stackConfig: (key: string) => config[key] ?? { missing: "not set" },
    });
    expect(await runCheckCommand(["--base-url", deviant.url], io({ PROXY_API_KEY: sandbox.current.apiKey }))).toBe(1);
    expect(out.join("")).toContain("1 breaking assumption differs");
    expect(await runCheckCommand([], io({}))).toBe(2);
    expect(out.join("")).toContain("pulumi config set proxy:baseUrl");
    const fromStack = io({}, { "proxy:baseUrl": sandbox.current.url, "proxy:apiKey": sandbox.current.apiKey });
    expect(await runCheckCommand([], fromStack)).toBe(0);
    // The provider's order: the stack's config before the environment.
    const both = io({ PROXY_API_BASE_URL: "http://127.0.0.1:9", PROXY_API_KEY: "sk_not_this_one" }, { "proxy:baseUrl": sandbox.current.url, "proxy:apiKey": sandbox.current.apiKey });
    expect(await runCheckCommand([], both)).toBe(0);
  });

  it("the command says why the stack's config was not read when the settings are missing", async () => {
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void out.push(t), env: {}, stackConfig: () => ({ missing: "the pulumi CLI is not on PATH" }) };
    expect(await runCheckCommand([], io)).toBe(2);
    expect(out.join("")).toMatch(/The stack's config was not read: the pulumi CLI is not on PATH/);
  });

  it("the command: exit 2, with the fix, when nothing could be checked: no answer, a refused key, no API at the URL", async () => {
    const run = async (args: string[], key: string) => {
      const out: string[] = [];
      const io = { out: (t: string) => void out.push(t), err: (t: string) => void out.push(t), env: { PROXY_API_KEY: key }, stackConfig: () => ({ missing: "not set" }) };
      return { status: await runCheckCommand(args, io), said: out.join("") };
    };
    // A port nothing listens on: the sandbox's, once stopped.
    const closed = await startSandbox({});
    await closed.stop();
    const noAnswer = await run(["--base-url", closed.url], sandbox.current.apiKey);
    expect(noAnswer).toMatchObject({ status: 2 });
    expect(noAnswer.said).toMatch(/Nothing could be checked: nothing answered at .*Check the base URL/);
    const refused = await run(["--base-url", sandbox.current.url], "sk_not_this_account");
    expect(refused).toMatchObject({ status: 2 });
    expect(refused.said).toMatch(/Nothing could be checked: the server refused the key.*PROXY_API_KEY, or the stack's proxy:apiKey/);
    expect(refused.said).not.toContain("sk_not_this_account");
    const noApi = await run(["--base-url", `${sandbox.current.url}/elsewhere`, "--json"], sandbox.current.apiKey);
    expect(noApi.status).toBe(2);
    expect(noApi.said).toMatch(/Nothing was checked: .*Check the base URL/);
  });

  it.each([
    ["the package's pulumi-proxy", join("dist", "check", "main.js")],
    ["the plugin's executable", join("dist", "plugin", "main.js")],
  ])("ships with %s: `check-api --json` against the sandbox exits 0", async (_, entry) => {
    const run = await promisify(execFile)(process.execPath, [join(REPO_ROOT, entry), "check-api", "--base-url", sandbox.current.url, "--json"], {
      env: { ...process.env, PROXY_API_KEY: sandbox.current.apiKey },
    });
    const findings = JSON.parse(run.stdout) as Finding[];
    expect(findings.length).toBeGreaterThan(10);
    expect(findings.filter((f) => f.holds === false)).toEqual([]);
  });
});

describe("check-api against a server that limits the rate hard", () => {
  const limited = useSandbox({ rateLimit: { requestsPerSecond: 2, burst: 2 } });
  it("waits out its 429s instead of reading them as answers, and reports their Retry-After", async () => {
    const findings = await checkApi({ baseUrl: limited.current.url, apiKey: limited.current.apiKey, buy: "dc-us-5", readyTimeoutMs: 60_000 });
    expect(findings.filter((f) => f.holds === false)).toEqual([]);
    expect(findings.find((f) => f.assumption.includes("429` carries `Retry-After"))?.holds).toBe(true);
  }, 120_000);
});
