import { describe, expect, it } from "vitest";
import { checkBaseUrl, ConfigurationError, isLoopback, misspeltSettings, resolveSettings, SANDBOX_COMMANDS } from "../../provider/core/config";

describe("settings", () => {
  it("prefers the stack's config to the environment, and trims a trailing slash", () => {
    const config = (key: string) => ({ "proxy:baseUrl": "https://api.example.com/", "proxy:apiKey": "cfg" })[key];
    expect(resolveSettings(config, { PROXY_API_BASE_URL: "https://other.example.com", PROXY_API_KEY: "env" })).toEqual({
      baseUrl: "https://api.example.com",
      apiKey: "cfg",
      maxRateShare: 100,
    });
  });

  it("falls back to the environment", () => {
    expect(resolveSettings(() => undefined, { PROXY_API_BASE_URL: "http://127.0.0.1:8787", PROXY_API_KEY: "env" })).toEqual({
      baseUrl: "http://127.0.0.1:8787",
      apiKey: "env",
      maxRateShare: 100,
    });
  });

  it("names both places for each missing setting, and never echoes a key", () => {
    const error = (() => {
      try {
        resolveSettings(() => undefined, { PROXY_API_BASE_URL: "https://api.example.com" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.message).toContain("proxy:apiKey");
    expect(error?.message).toContain("PROXY_API_KEY");
    expect(error?.message).not.toContain("proxy:baseUrl <url>");
  });

  it("names the sandbox command of the user's own front end: npm's by default, the plugin's for its users", () => {
    const missing = (names?: Parameters<typeof resolveSettings>[2]) => {
      try {
        resolveSettings(() => undefined, {}, names);
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(missing()).toContain("`npx pulumi-proxy-sandbox`");
    expect(missing({ sandboxCommand: SANDBOX_COMMANDS.plugin })).toContain("`pulumi-resource-proxy sandbox`");
    expect(missing({ sandboxCommand: SANDBOX_COMMANDS.plugin })).not.toContain("npx");
  });
});

describe("misspelt settings", () => {
  it("names a proxy: key within two edits of a setting, whatever its case, and leaves every other key alone", () => {
    const keys = ["proxy:baseURL", "proxy:apikey", "proxy:maxRateShares", "proxy:baseUrl", "proxy:region", "aws:baseURL", "shop:apiKey"];
    expect(misspeltSettings(keys)).toEqual([
      { given: "proxy:baseURL", meant: "proxy:baseUrl" },
      { given: "proxy:apikey", meant: "proxy:apiKey" },
      { given: "proxy:maxRateShares", meant: "proxy:maxRateShare" },
    ]);
  });

  it("adds to a missing setting's message the key that may have been meant", () => {
    const message = (() => {
      try {
        resolveSettings(() => undefined, { PROXY_API_KEY: "k" }, { misspelt: misspeltSettings(["proxy:baseURL"]) });
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toMatch(/not configured\. Set the API base URL.*`proxy:baseURL` is set, but it is not a setting of this provider: did you mean `proxy:baseUrl`\?$/s);
  });
});

describe("maxRateShare", () => {
  const base = { PROXY_API_BASE_URL: "https://api.example.com", PROXY_API_KEY: "k" };
  it("is a whole percent from 1 to 100, from the config or PROXY_API_MAX_RATE_SHARE, 100 when unset", () => {
    expect(resolveSettings(() => undefined, { ...base, PROXY_API_MAX_RATE_SHARE: "50" }).maxRateShare).toBe(50);
    expect(resolveSettings((k) => (k === "proxy:maxRateShare" ? "1" : undefined), { ...base, PROXY_API_MAX_RATE_SHARE: "50" }).maxRateShare).toBe(1);
    expect(resolveSettings(() => undefined, base).maxRateShare).toBe(100);
  });

  it.each(["0", "101", "50%", "0.5", "half"])("refuses %s, naming the setting and the fix", (value) => {
    const error = (() => {
      try {
        resolveSettings(() => undefined, { ...base, PROXY_API_MAX_RATE_SHARE: value });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/proxy:maxRateShare \(or PROXY_API_MAX_RATE_SHARE.*whole percent from 1 to 100, such as 50/);
  });
});

describe("base URL safety", () => {
  it.each(["localhost", "127.0.0.1", "127.8.9.10", "[::1]", "::1", "api.localhost"])("%s is loopback", (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each(["10.0.0.1", "192.168.1.1", "example.com", "128.0.0.1", "::2", "localhost.example.com"])("%s is not", (host) => {
    expect(isLoopback(host)).toBe(false);
  });

  it.each([
    ["https://api.example.com", undefined],
    ["http://127.0.0.1:8787", undefined],
    ["http://[::1]:8787", undefined],
    ["http://api.example.com", /clear text/],
    ["http://10.0.0.5:8787", /clear text/],
    ["ftp://api.example.com", /https/],
    ["https://user:pw@api.example.com", /credentials/],
    ["https://api.example.com?x=1", /query/],
    ["api.example.com", /not a URL/],
    ["https://api.example.com/v1", /version path.*use "https:\/\/api\.example\.com".*adds \/v1/],
    ["https://api.example.com/v1/", /version path/],
    ["http://127.0.0.1:8787/gateway/v1", /version path/],
    ["https://api.example.com/gateway", undefined],
    ["https://api.example.com/v1x", undefined],
  ])("%s", (url, problem) => {
    if (problem) expect(() => checkBaseUrl(url)).toThrow(problem);
    else expect(() => checkBaseUrl(url)).not.toThrow();
  });
});
