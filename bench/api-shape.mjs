// How much like a real API the sandbox behaves in a bench case. Its defaults are kind (answers at once, an
// `estimated_ready_at` on every pending order, a smoothly refilled bucket, hints with every answer); flags after a
// case's numbers take each kindness away (docs/sandbox.md, "Behaving like a real API"):
//   :on-429 or :never   the rate-limit hints only with 429s, or never (`:nohints` is `:never`)
//   :form=<form>        the hints in another form than the contract's: ietf-draft, x-ratelimit or x-rate-limit
//   :no-estimates       no estimated_ready_at and no polling Retry-After
//   :latency=<ms>       each request and answer spend that long on the way, half each
//   :window=<s>         fixed windows of R x s requests instead of a token bucket
//   :real               all of the last three: no estimates, 40 ms of latency, 1 s windows
// BENCH_API=real adds `:real` to every case, so one run measures the whole bench against the unkind API.

/** The sandbox options and a label for the case `spec` at R requests a second and T ms of provisioning. */
export function apiShape(spec, r, tMs) {
  const flags = new Set(spec.split(":").slice(1));
  if (process.env.BENCH_API === "real") flags.add("real");
  const valueOf = (name) => [...flags].find((f) => f.startsWith(`${name}=`))?.slice(name.length + 1);
  const real = flags.has("real");
  const hints = flags.has("never") || flags.has("nohints") ? "never" : flags.has("on-429") ? "on-429" : "always";
  const estimates = !(real || flags.has("no-estimates"));
  const latencyMs = Number(valueOf("latency") ?? (real ? 40 : 0));
  const windowSeconds = valueOf("window") !== undefined ? Number(valueOf("window")) : real ? 1 : undefined;
  const form = valueOf("form") ?? "contract";
  const parts = [
    hints === "always" ? "" : hints === "never" ? "no rate-limit hints" : "rate-limit hints only with 429s",
    hints !== "never" && form !== "contract" ? `hints in the ${form} form` : "",
    estimates ? "" : "no estimates",
    latencyMs > 0 ? `${latencyMs} ms latency` : "",
    windowSeconds ? `${windowSeconds} s windows` : "",
  ].filter(Boolean);
  return {
    options: {
      rateLimit: r > 0 ? { requestsPerSecond: r, burst: r, windowSeconds } : false,
      rateLimitHints: hints,
      rateLimitHintForm: form,
      pollingHints: estimates,
      latencyMs,
      provisioningMs: tMs,
    },
    hints,
    label: parts.length > 0 ? `, ${parts.join(", ")}` : "",
  };
}
