/** This package's version; a unit test keeps it equal to package.json's. */
export const VERSION = "0.1.0";

/** Sent as `User-Agent` on every API request. */
export const USER_AGENT = `pulumi-proxy/${VERSION}`;
