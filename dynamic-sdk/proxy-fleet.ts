/**
 * The ProxyFleet resource: N orders of one plan, bought and kept together by one resource.
 */
import * as pulumi from "@pulumi/pulumi";
import { FLEET_OUTPUT_ONLY_PROPERTIES, type FleetCredential, type FleetInputs, type FleetMember, type FleetOutputs, type FleetProxy } from "../provider/fleet-state";
import { FLEET_TYPE, PROVIDER_KEY, SERIALIZED_FLEET_PROVIDER } from "../provider/pulumi-host";
import { PROXY_FLEET } from "../provider/definitions";
import { secretNames, type Same } from "../provider/fields";
import type { ArgsFor, Declared, DeclaredFor, Plain } from "./in-sync";
import { resourceKey } from "./resource-key";

/** Inputs of a {@link ProxyFleet}. */
export interface ProxyFleetArgs {
  /**
   * The plan every member buys, such as `dc-us-5`. Changing it replaces the fleet (new purchases); the old orders stay
   * with the account.
   */
  planId: pulumi.Input<string>;
  /**
   * How many orders of the plan the fleet holds (1 to 1000). Raising it buys only the new members; lowering it stops
   * tracking the highest slots, whose orders stay with the account.
   */
  orders: pulumi.Input<number>;
  /** Wait until every member is `active`. Defaults to true. */
  waitForReady?: pulumi.Input<boolean>;
  /**
   * How long create and update wait for the members, together, such as `20m` (1s to 24h). Through the plugin,
   * `customTimeouts`, when set, take its place; they do not reach the dynamic provider. On timeout the fleet is
   * recorded with what it holds and the next `pulumi up` resumes it. Defaults to `20m`.
   */
  readyTimeout?: pulumi.Input<string>;
  /**
   * Renew each member this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d): a member inside the
   * window is replaced alone, by a new order (new proxies). Unset (the default), nothing is renewed.
   */
  renewBefore?: pulumi.Input<string>;
  /**
   * The fleet's identity, from which each member's idempotency key is derived with its slot. Defaults to a key derived
   * from the project, stack, resource name and plan.
   */
  idempotencyKey?: pulumi.Input<string>;
}

/**
 * A fleet of orders of one plan, as one resource: it buys its members together, in the time the API's rate limit
 * allows rather than one of the engine's `--parallel` slots per order, and changes only the members that must change.
 * The API cannot cancel orders, so deleting it only stops tracking them.
 */
export class ProxyFleet extends pulumi.CustomResource {
  /**
   * The plan every member buys, such as `dc-us-5`. Changing it replaces the fleet (new purchases); the old orders stay
   * with the account.
   */
  declare readonly planId: pulumi.Output<string>;
  /**
   * How many orders of the plan the fleet holds (1 to 1000). Raising it buys only the new members; lowering it stops
   * tracking the highest slots, whose orders stay with the account.
   */
  declare readonly orders: pulumi.Output<number>;
  /** Wait until every member is `active`. Defaults to true. */
  declare readonly waitForReady: pulumi.Output<boolean>;
  /**
   * How long create and update wait for the members, together, such as `20m` (1s to 24h). Through the plugin,
   * `customTimeouts`, when set, take its place; they do not reach the dynamic provider. On timeout the fleet is
   * recorded with what it holds and the next `pulumi up` resumes it. Defaults to `20m`.
   */
  declare readonly readyTimeout: pulumi.Output<string>;
  /**
   * Renew each member this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d): a member inside the
   * window is replaced alone, by a new order (new proxies). Unset (the default), nothing is renewed.
   */
  declare readonly renewBefore: pulumi.Output<string | undefined>;
  /**
   * The fleet's identity, from which each member's idempotency key is derived with its slot. Defaults to a key derived
   * from the project, stack, resource name and plan.
   */
  declare readonly idempotencyKey: pulumi.Output<string>;
  /** Every member: its slot, order id, status and expiry. */
  declare readonly members: pulumi.Output<FleetMember[]>;
  /** Orders being renewed whose successor is not ready yet: still tracked, their proxies still listed. */
  declare readonly retiring: pulumi.Output<FleetMember[]>;
  /** Every proxy of the fleet, flattened, each with its `orderId`; no credentials. */
  declare readonly proxies: pulumi.Output<FleetProxy[]>;
  /** Credentials of the proxies, in the same order as `proxies`. Always secret. */
  declare readonly credentials: pulumi.Output<FleetCredential[]>;
  /** The earliest expiry of the fleet's active members (RFC 3339). */
  declare readonly expiresAt: pulumi.Output<string | null>;

  /**
   * @param name The resource's unique name; it is part of the derived idempotency keys.
   * @param args The plan, how many orders, and how to wait and renew.
   * @param opts Resource options.
   */
  constructor(name: string, args: ProxyFleetArgs, opts?: pulumi.CustomResourceOptions) {
    const idempotencyKey = resourceKey(name, args.planId, args.idempotencyKey);
    // Every input of the description as given (check fills in the defaults), and every output, undefined, so that the
    // engine returns it (pulumi/pulumi#2931).
    const inputs = Object.fromEntries(Object.keys(PROXY_FLEET.inputs).map((key) => [key, args[key as keyof ProxyFleetArgs]]));
    const outputs = Object.fromEntries(FLEET_OUTPUT_ONLY_PROPERTIES.map((key) => [key, undefined]));
    super(
      FLEET_TYPE,
      name,
      {
        [PROVIDER_KEY]: SERIALIZED_FLEET_PROVIDER,
        ...outputs,
        ...inputs,
        idempotencyKey,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretNames(PROXY_FLEET.outputs)] },
    );
  }
}

// The arguments are the description's inputs, and the class declares its inputs and outputs, by name and by type
// (dynamic-sdk/in-sync.ts).
const inSync: [
  Same<Plain<ProxyFleetArgs>, ArgsFor<typeof PROXY_FLEET.inputs, FleetInputs>>,
  Same<Declared<ProxyFleet>, DeclaredFor<FleetOutputs>>,
] = [true, true];
void inSync;
