/**
 * The idempotency key a resource derives in the program when none is given: from the project, stack, resource name
 * and plan (provider/idempotency.ts), the same key the provider plugin derives from the resource's URN.
 */
import * as pulumi from "@pulumi/pulumi";
import { purchaseKey } from "../provider/idempotency";

/** `given`, or the key derived for the resource `name` once its plan is known. */
export function resourceKey(name: string, planId: pulumi.Input<string>, given: pulumi.Input<string> | undefined): pulumi.Input<string> {
  return given ?? pulumi.output(planId).apply((plan) => purchaseKey({ project: pulumi.getProject(), stack: pulumi.getStack(), resourceName: name, planId: plan }));
}
