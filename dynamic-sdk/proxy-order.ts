/**
 * The ProxyOrder resource: one purchase of a plan, and the proxies it provisioned.
 */
import * as pulumi from "@pulumi/pulumi";
import type { StatusReason } from "../contract/types";
import { OUTPUT_ONLY_PROPERTIES, type OrderInputs, type OrderOutputs, type ProxyCredential, type ProxyInfo } from "../provider/order-state";
import { ORDER_TYPE, PROVIDER_KEY, SERIALIZED_PROVIDER } from "../provider/pulumi-host";
import { PROXY_ORDER } from "../provider/definitions";
import { secretNames, type Same } from "../provider/fields";
import type { ArgsFor, Declared, DeclaredFor, Plain } from "./in-sync";
import { resourceKey } from "./resource-key";

/** Inputs of a {@link ProxyOrder}. */
export interface ProxyOrderArgs {
  /** The plan to buy, such as `dc-us-5` (1 to 128 characters). Changing it buys a new order (a replacement). */
  planId: pulumi.Input<string>;
  /**
   * Wait until the order is `active` and its proxies are assigned. With false, create returns once the order is placed,
   * with the status the API gave it (usually `pending`). Defaults to true.
   */
  waitForReady?: pulumi.Input<boolean>;
  /**
   * How long create waits for the order, such as `20m` or `1h30m` (1s to 24h). Through the plugin,
   * `customTimeouts.create` (and `.update`), when set, take its place; they do not reach the dynamic provider, where
   * this is the only deadline. On timeout the order is kept in the state and the next `pulumi up` resumes waiting.
   * Defaults to `20m`.
   */
  readyTimeout?: pulumi.Input<string>;
  /**
   * Idempotency key of the purchase. Defaults to a key derived from the project, stack, resource name and plan, so that
   * running `pulumi up` again never buys twice.
   */
  idempotencyKey?: pulumi.Input<string>;
  /**
   * The id of an order that already exists (`ord_...`), to track it instead of buying one, for example after a lost
   * state or a moved resource. Create reads the order, checks that it is for `planId`, and waits for it like a
   * purchase; changing it to another order replaces the resource, and removing it later is an update in place that
   * calls nothing. Through the plugin, `pulumi import` does the same for a new resource; dynamic resources cannot be
   * imported, so with the dynamic provider this is the way back.
   */
  adoptOrderId?: pulumi.Input<string>;
  /**
   * Renew the order this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d). Once the order's
   * `expiresAt` is that close, the preview plans a replacement and `pulumi up` buys a new order (new proxies: the API
   * cannot extend one), waits for it, and only then stops tracking the old one. It must be shorter than the plan's
   * lifetime. Unset (the default), nothing is renewed, since a renewal is a purchase; refresh and preview warn 7 days
   * before expiry.
   */
  renewBefore?: pulumi.Input<string>;
}

/**
 * A purchase of one proxy plan.
 *
 * Creating it buys the plan and (by default) waits until its proxies are ready. The API cannot cancel orders, so
 * deleting it only stops tracking the order: the purchase stays active.
 */
export class ProxyOrder extends pulumi.CustomResource {
  /** The plan to buy, such as `dc-us-5` (1 to 128 characters). Changing it buys a new order (a replacement). */
  declare readonly planId: pulumi.Output<string>;
  /**
   * Wait until the order is `active` and its proxies are assigned. With false, create returns once the order is placed,
   * with the status the API gave it (usually `pending`). Defaults to true.
   */
  declare readonly waitForReady: pulumi.Output<boolean>;
  /**
   * How long create waits for the order, such as `20m` or `1h30m` (1s to 24h). Through the plugin,
   * `customTimeouts.create` (and `.update`), when set, take its place; they do not reach the dynamic provider, where
   * this is the only deadline. On timeout the order is kept in the state and the next `pulumi up` resumes waiting.
   * Defaults to `20m`.
   */
  declare readonly readyTimeout: pulumi.Output<string>;
  /**
   * Idempotency key of the purchase. Defaults to a key derived from the project, stack, resource name and plan, so that
   * running `pulumi up` again never buys twice.
   */
  declare readonly idempotencyKey: pulumi.Output<string>;
  /**
   * The id of an order that already exists (`ord_...`), to track it instead of buying one, for example after a lost
   * state or a moved resource. Create reads the order, checks that it is for `planId`, and waits for it like a
   * purchase; changing it to another order replaces the resource, and removing it later is an update in place that
   * calls nothing. Through the plugin, `pulumi import` does the same for a new resource; dynamic resources cannot be
   * imported, so with the dynamic provider this is the way back.
   */
  declare readonly adoptOrderId: pulumi.Output<string | undefined>;
  /**
   * Renew the order this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d). Once the order's
   * `expiresAt` is that close, the preview plans a replacement and `pulumi up` buys a new order (new proxies: the API
   * cannot extend one), waits for it, and only then stops tracking the old one. It must be shorter than the plan's
   * lifetime. Unset (the default), nothing is renewed, since a renewal is a purchase; refresh and preview warn 7 days
   * before expiry.
   */
  declare readonly renewBefore: pulumi.Output<string | undefined>;
  /** The order id, such as `ord_...` (also the resource's id). */
  declare readonly orderId: pulumi.Output<string>;
  /**
   * `pending`, `provisioning`, `active`, `failed`, `cancelled` or `expired`, as of the last create, update or refresh.
   */
  declare readonly status: pulumi.Output<string>;
  /** Why the order failed or was cancelled, when it did. */
  declare readonly statusReason: pulumi.Output<StatusReason | null>;
  /** When the order was placed (RFC 3339). */
  declare readonly createdAt: pulumi.Output<string | null>;
  /** When the order became active (RFC 3339). */
  declare readonly readyAt: pulumi.Output<string | null>;
  /**
   * When the order expires (RFC 3339): the earliest expiry of the order and its proxies, as of the last create, update
   * or refresh; null when the API reported none.
   */
  declare readonly expiresAt: pulumi.Output<string | null>;
  /** The proxies this order provisioned, without their credentials. */
  declare readonly proxies: pulumi.Output<ProxyInfo[]>;
  /** Credentials of the proxies, in the same order as `proxies`. Always secret. */
  declare readonly credentials: pulumi.Output<ProxyCredential[]>;
  /**
   * The idempotency key the order was bought with (differs from `idempotencyKey` after a re-purchase); null for an
   * adopted or imported order.
   */
  declare readonly purchaseKey: pulumi.Output<string | null>;
  /**
   * The API the order was bought from (or adopted or imported at): its base URL. An order is never read, renewed or
   * dropped through another API; after `proxy:baseUrl` changes, preview and up name it and say how to go on
   * (docs/going-live.md). Absent for an order an earlier build of this package recorded, until a refresh or up finds it
   * at the configured API.
   */
  declare readonly apiBaseUrl: pulumi.Output<string | undefined>;
  /**
   * A one-way fingerprint of the API key the order was bought with (never the key). A `404` from a key that is not this
   * one drops the order from the state only when that key still sees another order of the same key, that is, the same
   * account.
   */
  declare readonly apiKeyFingerprint: pulumi.Output<string | undefined>;

  /**
   * @param name The resource's unique name; it is part of the derived idempotency key.
   * @param args The plan and how to wait.
   * @param opts Resource options.
   */
  constructor(name: string, args: ProxyOrderArgs, opts?: pulumi.CustomResourceOptions) {
    const idempotencyKey = resourceKey(name, args.planId, args.idempotencyKey);
    // Every input of the description as given (check fills in the defaults), and every output, undefined, so that the
    // engine returns it (pulumi/pulumi#2931).
    const inputs = Object.fromEntries(Object.keys(PROXY_ORDER.inputs).map((key) => [key, args[key as keyof ProxyOrderArgs]]));
    const outputs = Object.fromEntries(OUTPUT_ONLY_PROPERTIES.map((key) => [key, undefined]));
    // What `pulumi.dynamic.Resource` does, with a provider written by hand instead of serialized (see provider/pulumi-host.ts).
    super(
      ORDER_TYPE,
      name,
      {
        [PROVIDER_KEY]: SERIALIZED_PROVIDER,
        ...outputs,
        ...inputs,
        idempotencyKey,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretNames(PROXY_ORDER.outputs)] },
    );
  }
}

// The arguments are the description's inputs, and the class declares its inputs and outputs, by name and by type
// (dynamic-sdk/in-sync.ts).
const inSync: [
  Same<Plain<ProxyOrderArgs>, ArgsFor<typeof PROXY_ORDER.inputs, OrderInputs>>,
  Same<Declared<ProxyOrder>, DeclaredFor<OrderOutputs>>,
] = [true, true];
void inSync;
