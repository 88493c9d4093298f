/**
 * getUsage and getUsageOutput: bandwidth and requests used in the current billing period.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Usage } from "../contract/types";
import { programClient } from "./program-client";

/** Result of {@link getUsage}: `null` limits mean unlimited; bytes are integers. */
export type GetUsageResult = Usage;

/** Reads the usage of the current billing period (`GET /v1/usage`). */
export async function getUsage(): Promise<GetUsageResult> {
  return programClient().getUsage();
}

/** Like {@link getUsage}, as an Output. */
export function getUsageOutput(): pulumi.Output<GetUsageResult> {
  return pulumi.output(getUsage());
}
