// One listing run in its own process, so its peak memory is its own: `ours` (getProxies) or `raw` (an undici loop over
// the same pages). @pulumi/pulumi is loaded in both, as it is in a program. Prints JSON: { ms, maxRssMb, count }.
import { createRequire } from "node:module";
import { join } from "node:path";

const [, , root, mode, url, apiKey] = process.argv;
const require = createRequire(join(root, "package.json"));
require("@pulumi/pulumi");
const started = performance.now();
let count = 0;
if (mode === "ours") {
  process.env.PROXY_API_BASE_URL = url;
  process.env.PROXY_API_KEY = apiKey;
  const { getProxies } = require(join(root, "dist", "dynamic-sdk", "index.js"));
  count = (await getProxies()).proxies.length;
} else {
  const { request } = require("undici");
  let cursor;
  do {
    const res = await request(`${url}/v1/proxies?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const page = JSON.parse(await res.body.text());
    count += page.data.length;
    cursor = page.has_more ? page.next_cursor : undefined;
  } while (cursor);
}
const ms = performance.now() - started;
console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, count }));
