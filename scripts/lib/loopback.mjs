// Loopback for the real servers the tests and the bench start (nginx, HAProxy, the sliding log, httprate): a free port,
// a wait until a server listens on one, and the fronts that print each decision's status as they decide.
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";

/** A free port on loopback. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something listens on `port`, or rejects naming `what` after `timeoutMs`. */
export async function listening(port, what, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The statuses a front writes to `stream`, one a line (HAProxy's log, the sliding log's decisions), as they come. */
export function statusLines(stream) {
  const statuses = [];
  let partial = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const line of lines) if (/^\d{3}$/.test(line.trim())) statuses.push(Number(line.trim()));
  });
  return statuses;
}

/**
 * Runs `file` with `args`, a front on loopback `port` that prints each decision's status on its stdout, and resolves
 * once it listens: its URL, how many requests it refused (answered `refusal`) and passed, and how to stop it (`cleanup`
 * runs once it has exited).
 */
export async function startStatusFront(what, port, file, args, { env = process.env, refusal = 429, stderr = "inherit", cleanup } = {}) {
  const child = spawn(file, args, { env, stdio: ["ignore", "pipe", stderr] });
  const statuses = statusLines(child.stdout);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const failed = new Promise((_, reject) => child.once("error", reject));
  await Promise.race([listening(port, what), failed]);
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => statuses.filter((s) => s === refusal).length,
    passed: () => statuses.filter((s) => s !== refusal).length,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      cleanup?.();
    },
  };
}
