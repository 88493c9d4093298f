// Unit tests of the program in index.ts, as a user writes them: no Pulumi engine, no API.
// pulumi.runtime.setMocks answers for the resource (`newResource`) and for the functions (`call`, with the tokens
// proxy:index:getProxies and proxy:index:getUsage). functions.test.ts shows the functions against nock instead.
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";

const value = <T>(output: pulumi.Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));

describe("the program, under setMocks", () => {
  let program: typeof import("./index");

  beforeAll(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: "ord_test_1", state: { ...args.inputs, orderId: "ord_test_1", status: "active" } }),
        call: (args) =>
          args.token === "proxy:index:getProxies"
            ? { proxies: [{ ip: "198.51.100.7", port: 8080, type: "datacenter", country: "DE", protocol: "http" }] }
            : {},
      },
      "proxy-testing",
      "test",
    );
    program = await import("./index");
  });

  it("buys the configured plan", async () => {
    expect(await value(program.order.planId)).toBe("dc-de-25");
    expect(await value(program.orderId)).toBe("ord_test_1");
  });

  it("builds proxy URLs from getProxies", async () => {
    expect(await value(program.germanProxyUrls)).toEqual(["http://198.51.100.7:8080"]);
  });
});
