/**
 * The usual setting of an end-to-end test: a sandbox, and a stack of a program pointed at it, for one describe block.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../sandbox";
import { PulumiProgram } from "./pulumi";

/** What {@link useStack} sets up; read it inside tests, after `beforeAll` ran. */
export interface StackUnderTest {
  sandbox: Sandbox;
  program: PulumiProgram;
}

export interface UseStackOptions {
  /** The sandbox's options. */
  sandbox?: SandboxOptions;
  /** The stack's name. @default "e2e" */
  stack?: string;
  /** The folder the program is installed in, made when the block starts (outside the repository); default: a copy. */
  installedDir?: () => string;
  /** Runs after the stack exists and before it is pointed at the sandbox. */
  prepare?: (program: PulumiProgram) => Promise<void> | void;
}

/** Starts the sandbox and creates the stack before the block's tests, and removes both after them. */
export function useStack(programPath: string, options: UseStackOptions = {}): StackUnderTest {
  const stack = {} as StackUnderTest;
  beforeAll(async () => {
    stack.sandbox = await startSandbox(options.sandbox);
    const installedDir = options.installedDir?.();
    stack.program = await PulumiProgram.create(programPath, options.stack ?? "e2e", installedDir ? { installedDir } : {});
    await options.prepare?.(stack.program);
    await stack.program.useApi(stack.sandbox);
  }, 300_000);
  afterAll(async () => {
    stack.program?.cleanup();
    await stack.sandbox?.stop();
    // Every answer of the block's tests kept the contract (sandbox/answer-check.ts).
    expect(stack.sandbox?.contractViolations ?? []).toEqual([]);
  });
  return stack;
}
