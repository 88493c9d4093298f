/** The cache folder: `$XDG_CACHE_HOME/pulumi-proxy`, or `~/.cache/pulumi-proxy` (cache-root.mjs). */
export declare const cacheRoot: string;
