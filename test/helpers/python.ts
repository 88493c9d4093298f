/**
 * A Python environment for the plugin's Python programs: a virtualenv in the cache folder (outside the repository,
 * like the Pulumi CLI) with the `pulumi` package from PyPI, and a fresh install of this tree's sdk/python.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheRoot } from "../../scripts/lib/cache-root.mjs";
import { REPO_ROOT } from "./pulumi";

/** The `pulumi` Python package the tests use: the newest release as of November 2026. */
export const PYTHON_PULUMI_VERSION = "3.272.0";

/**
 * A virtualenv's folder, created on first use, with the `pulumi` package and, on every call, the plugin's SDK: this
 * tree's sdk/python by default, or a built wheel (`sdk`). `name` keeps environments apart that hold different SDKs.
 */
export function pythonEnvironment(options: { sdk?: string; name?: string } = {}): string {
  const venv = join(cacheRoot, `python-pulumi-${PYTHON_PULUMI_VERSION}${options.name ? `-${options.name}` : ""}`);
  const pip = (args: string[]) => execFileSync(join(venv, "bin", "python"), ["-m", "pip", "--disable-pip-version-check", "-q", ...args], { stdio: "pipe" });
  // A marker written last, so an interrupted install is redone rather than used.
  const complete = join(venv, ".pulumi-proxy-complete");
  if (!existsSync(complete)) {
    rmSync(venv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", venv], { stdio: "pipe" });
    pip(["install", `pulumi==${PYTHON_PULUMI_VERSION}`]);
    writeFileSync(complete, "");
  }
  if (options.sdk) {
    pip(["install", "--force-reinstall", "--no-deps", options.sdk]);
    pip(["install", options.sdk]);
    return venv;
  }
  // pip builds in the folder it installs from: a copy keeps build files out of the tree.
  const copy = mkdtempSync(join(tmpdir(), "pulumi-proxy-sdk-python-"));
  try {
    cpSync(join(REPO_ROOT, "sdk", "python"), copy, { recursive: true });
    pip(["install", "--force-reinstall", "--no-deps", copy]);
    pip(["install", copy]);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  return venv;
}

/** The Schemathesis release the fuzz test runs (PyPI). */
export const SCHEMATHESIS_VERSION = "4.32.5";

/** The `st` executable of a virtualenv in the cache folder holding Schemathesis, created on first use. */
export function schemathesis(): string {
  const venv = join(cacheRoot, `schemathesis-${SCHEMATHESIS_VERSION}`);
  const complete = join(venv, ".pulumi-proxy-complete");
  if (!existsSync(complete)) {
    rmSync(venv, { recursive: true, force: true });
    execFileSync("python3", ["-m", "venv", venv], { stdio: "pipe" });
    execFileSync(join(venv, "bin", "python"), ["-m", "pip", "--disable-pip-version-check", "-q", "install", `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: "pipe" });
    writeFileSync(complete, "");
  }
  return join(venv, "bin", "st");
}
