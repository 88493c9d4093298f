/**
 * The contract check (`check-api`, docs/going-live.md): what other folders may use of it. It probes a live API
 * against the contract's assumptions with reads and, when asked, one purchase.
 */

/** Runs `check-api` with its command-line arguments, as `pulumi-proxy check-api` and the plugin's `check-api` do. */
export { runCheckCommand } from "./cli";
