/**
 * getUsage and getUsageOutput: bandwidth and requests used in the current billing period.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Usage } from "../contract";
import { callFunction, dependencies, outputCall, programClient, type FunctionOutputOptions } from "./program-client";

/** Result of {@link getUsage}: `null` limits mean unlimited; bytes are integers. */
export type GetUsageResult = Usage;

/** Reads the usage of the current billing period (`GET /v1/usage`). Under `setMocks`: the mocks' `proxy:index:getUsage`. */
export async function getUsage(): Promise<GetUsageResult> {
  return callFunction("proxy:index:getUsage", {}, () => programClient().getUsage());
}

/** Like {@link getUsage}, as an Output; `dependsOn` delays the call until those resources exist. */
export function getUsageOutput(options: FunctionOutputOptions = {}): pulumi.Output<GetUsageResult> {
  return dependencies(options).apply(() => outputCall(() => getUsage()));
}
