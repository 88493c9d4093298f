/**
 * Real proxy servers on loopback, each started with a configuration of the test's own and requiring a username and
 * password: tinyproxy, squid, Apache httpd (mod_proxy), ncat, pproxy, proxy.py, npm's `proxy` and Apify's `proxy-chain`
 * for HTTP CONNECT;
 * microsocks, Dante, pproxy, npm's `socksv5` and Go's go-socks5 for SOCKS5. They come from Debian's packages, PyPI and
 * Go modules through scripts/ensure-proxies (test/fixtures/go-proxies builds goproxy and go-socks5), and from npm as
 * dev dependencies (test/fixtures/npm-proxy-server.mjs runs them).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, listening } from "./ports";
import { REPO_ROOT } from "./pulumi";

/** One running server, with the credentials it requires. */
export interface RealProxy {
  name: string;
  protocol: "http" | "socks5";
  port: number;
  username: string;
  password: string;
}

/** The servers, and how to stop them all. */
export interface RealProxies {
  proxies: RealProxy[];
  stop(): Promise<void>;
}

const USER = "checker";
const PASSWORD = "real-proxy-pass";
/** The account and password scripts/ensure-proxies makes for Dante, which checks the system's accounts. */
const DANTE_USER = "pulumi-proxy-check";
const DANTE_PASSWORD = "dante-check-password";

interface Server {
  name: string;
  protocol: "http" | "socks5";
  username?: string;
  password?: string;
  /** Admits every client on loopback: its record carries no username or password. */
  open?: boolean;
  /** Writes its configuration into `dir` and gives the command that runs it in the foreground. */
  command(port: number, dir: string): { file: string; args: string[]; env?: NodeJS.ProcessEnv };
}

/** The paths scripts/ensure-proxies gives: the PyPI servers' folder and the Go program that runs goproxy and go-socks5. */
interface Installed {
  pythonDir: string;
  goProxies: string;
}

/** elazarl/goproxy or armon/go-socks5 (test/fixtures/go-proxies), with the tests' credentials unless `open`. */
function goServer(installed: Installed, kind: "http" | "socks5", open = false): Server {
  return {
    name: kind === "http" ? "goproxy" : "go-socks5",
    protocol: kind,
    command: (port) => ({ file: installed.goProxies, args: [kind, String(port), ...(open ? [] : [USER, PASSWORD])] }),
  };
}

/**
 * Apache httpd as a forward proxy (mod_proxy, mod_proxy_connect), asking a username and password of every request as
 * its documentation's `<Proxy "*">` block with basic authentication does. `allowConnect`: the ports CONNECT may reach
 * (its default, without an `AllowCONNECT` line, is 443 and 563).
 */
function apacheServer(name: string, allowConnect?: string): Server {
  return {
    name,
    protocol: "http",
    command: (port, dir) => {
      const runtime = join(dir, `apache-${port}`);
      mkdirSync(runtime);
      const passwd = join(runtime, "htpasswd");
      writeFileSync(passwd, `${USER}:${execFileSync("openssl", ["passwd", "-apr1", PASSWORD], { encoding: "utf8" }).trim()}\n`);
      chmodSync(passwd, 0o644);
      const modules = ["mpm_event", "authn_core", "authn_file", "authz_core", "authz_user", "auth_basic", "proxy", "proxy_http", "proxy_connect"];
      const conf = join(runtime, "httpd.conf");
      writeFileSync(conf, [
        "ServerRoot /usr/lib/apache2",
        "ServerName localhost",
        `Listen 127.0.0.1:${port}`,
        `PidFile ${join(runtime, "httpd.pid")}`,
        `DefaultRuntimeDir ${runtime}`,
        `ErrorLog ${join(runtime, "error.log")}`,
        "User www-data",
        "Group www-data",
        ...modules.map((module) => `LoadModule ${module}_module modules/mod_${module}.so`),
        "ProxyRequests On",
        ...(allowConnect ? [`AllowCONNECT ${allowConnect}`] : []),
        '<Proxy "*">',
        "  AuthType Basic",
        '  AuthName "proxy"',
        "  AuthBasicProvider file",
        `  AuthUserFile ${passwd}`,
        "  Require valid-user",
        "</Proxy>",
      ].join("\n"));
      return { file: "/usr/sbin/apache2", args: ["-DFOREGROUND", "-f", conf] };
    },
  };
}

function servers(installed: Installed): Server[] {
  const { pythonDir } = installed;
  const pproxy = (protocol: "http" | "socks5"): Server => ({
    name: `pproxy (${protocol})`,
    protocol,
    // `--auth 0`: pproxy otherwise trusts an address for 30 days once it has authenticated.
    command: (port) => ({
      file: "python3",
      args: ["-m", "pproxy", "--auth", "0", "-l", `${protocol}://127.0.0.1:${port}#${USER}:${PASSWORD}`],
      env: { ...process.env, PYTHONPATH: pythonDir },
    }),
  });
  const npm = (kind: "http" | "proxy-chain" | "socks5", name: string): Server => ({
    name,
    protocol: kind === "socks5" ? "socks5" : "http",
    command: (port) => ({ file: process.execPath, args: [join(REPO_ROOT, "test", "fixtures", "npm-proxy-server.mjs"), kind, String(port), USER, PASSWORD] }),
  });
  return [
    {
      name: "tinyproxy",
      protocol: "http",
      command: (port, dir) => {
        const conf = join(dir, "tinyproxy.conf");
        writeFileSync(conf, [`Port ${port}`, "Listen 127.0.0.1", "Timeout 60", `BasicAuth ${USER} ${PASSWORD}`, "Allow 127.0.0.1", "LogLevel Warning", `PidFile "${join(dir, "tinyproxy.pid")}"`].join("\n"));
        return { file: "tinyproxy", args: ["-d", "-c", conf] };
      },
    },
    {
      name: "squid",
      protocol: "http",
      command: (port, dir) => {
        const passwd = join(dir, "squid.passwd");
        writeFileSync(passwd, `${USER}:${execFileSync("openssl", ["passwd", "-apr1", PASSWORD], { encoding: "utf8" }).trim()}\n`);
        chmodSync(passwd, 0o644);
        const conf = join(dir, "squid.conf");
        writeFileSync(conf, [
          `http_port 127.0.0.1:${port}`,
          `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${passwd}`,
          "acl authed proxy_auth REQUIRED",
          "http_access allow authed",
          "http_access deny all",
          "cache deny all",
          "cache_mem 8 MB",
          "access_log none",
          `cache_log ${join(dir, "squid-cache.log")}`,
          `pid_filename ${join(dir, "squid.pid")}`,
          `coredump_dir ${dir}`,
          "shutdown_lifetime 0 seconds",
        ].join("\n"));
        return { file: "squid", args: ["-N", "-f", conf] };
      },
    },
    apacheServer("Apache httpd", "1-65535"),
    {
      name: "ncat",
      protocol: "http",
      command: (port) => ({ file: "ncat", args: ["--listen", "--keep-open", "127.0.0.1", String(port), "--proxy-type", "http", "--proxy-auth", `${USER}:${PASSWORD}`] }),
    },
    pproxy("http"),
    {
      name: "proxy.py",
      protocol: "http",
      command: (port) => ({
        file: "python3",
        args: ["-m", "proxy", "--hostname", "127.0.0.1", "--port", String(port), "--basic-auth", `${USER}:${PASSWORD}`, "--num-workers", "1", "--num-acceptors", "1", "--log-level", "WARNING"],
        env: { ...process.env, PYTHONPATH: pythonDir },
      }),
    },
    npm("http", "proxy (npm)"),
    npm("proxy-chain", "proxy-chain (npm)"),
    {
      name: "microsocks",
      protocol: "socks5",
      command: (port) => ({ file: "microsocks", args: ["-i", "127.0.0.1", "-p", String(port), "-u", USER, "-P", PASSWORD] }),
    },
    {
      name: "Dante",
      protocol: "socks5",
      username: DANTE_USER,
      password: DANTE_PASSWORD,
      command: (port, dir) => {
        const conf = join(dir, "danted.conf");
        writeFileSync(conf, [
          `logoutput: ${join(dir, "danted.log")}`,
          `internal: 127.0.0.1 port = ${port}`,
          "external: 127.0.0.1",
          "socksmethod: username",
          "user.privileged: root",
          "user.unprivileged: nobody",
          "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
          "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
        ].join("\n"));
        return { file: "danted", args: ["-f", conf, "-p", join(dir, "danted.pid"), "-N", "1"] };
      },
    },
    pproxy("socks5"),
    npm("socks5", "socksv5 (npm)"),
    goServer(installed, "socks5"),
  ];
}

/**
 * Servers that admit every client on loopback without authentication, as a seller's proxies allow-listed by IP do:
 * squid by an ACL of source addresses, tinyproxy by `Allow`, Dante with `socksmethod: none`, Privoxy as Debian ships it
 * (only its port and log folder moved), microsocks, npm's and Go's servers without credentials. Their records carry no
 * username or password.
 */
function openServers(installed: Installed): Server[] {
  const npm = (kind: "http" | "proxy-chain" | "socks5", name: string): Server => ({
    name,
    protocol: kind === "socks5" ? "socks5" : "http",
    command: (port) => ({ file: process.execPath, args: [join(REPO_ROOT, "test", "fixtures", "npm-proxy-server.mjs"), kind, String(port)] }),
  });
  return [
    {
      name: "tinyproxy",
      protocol: "http",
      command: (port, dir) => {
        const conf = join(dir, `tinyproxy-open-${port}.conf`);
        writeFileSync(conf, [`Port ${port}`, "Listen 127.0.0.1", "Timeout 60", "Allow 127.0.0.1", "LogLevel Warning", `PidFile "${join(dir, `tinyproxy-open-${port}.pid`)}"`].join("\n"));
        return { file: "tinyproxy", args: ["-d", "-c", conf] };
      },
    },
    {
      name: "squid",
      protocol: "http",
      command: (port, dir) => {
        const conf = join(dir, `squid-open-${port}.conf`);
        writeFileSync(conf, [
          `http_port 127.0.0.1:${port}`,
          "acl allowlisted src 127.0.0.0/8",
          "http_access allow allowlisted",
          "http_access deny all",
          "cache deny all",
          "cache_mem 8 MB",
          "access_log none",
          `cache_log ${join(dir, `squid-open-${port}-cache.log`)}`,
          `pid_filename ${join(dir, `squid-open-${port}.pid`)}`,
          `coredump_dir ${dir}`,
          "shutdown_lifetime 0 seconds",
        ].join("\n"));
        return { file: "squid", args: ["-N", "-f", conf] };
      },
    },
    npm("http", "proxy (npm)"),
    npm("proxy-chain", "proxy-chain (npm)"),
    { name: "microsocks", protocol: "socks5", command: (port) => ({ file: "microsocks", args: ["-i", "127.0.0.1", "-p", String(port)] }) },
    {
      name: "Dante",
      protocol: "socks5",
      command: (port, dir) => {
        const conf = join(dir, `danted-open-${port}.conf`);
        writeFileSync(conf, [
          `logoutput: ${join(dir, `danted-open-${port}.log`)}`,
          `internal: 127.0.0.1 port = ${port}`,
          "external: 127.0.0.1",
          "socksmethod: none",
          "user.privileged: root",
          "user.unprivileged: nobody",
          "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
          "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
        ].join("\n"));
        return { file: "danted", args: ["-f", conf, "-p", join(dir, `danted-open-${port}.pid`), "-N", "1"] };
      },
    },
    npm("socks5", "socksv5 (npm)"),
    {
      name: "Privoxy (shipped configuration)",
      protocol: "http",
      command: (port, dir) => {
        const shipped = readFileSync("/etc/privoxy/config", "utf8");
        if (!/^listen-address {2}127\.0\.0\.1:8118$/m.test(shipped) || !/^logdir \/var\/log\/privoxy$/m.test(shipped)) {
          throw new Error("/etc/privoxy/config is not the configuration Debian's privoxy ships (listen-address 127.0.0.1:8118)");
        }
        const conf = join(dir, `privoxy-${port}.conf`);
        writeFileSync(conf, shipped.replace(/^listen-address {2}127\.0\.0\.1:8118$/m, `listen-address 127.0.0.1:${port}`).replace(/^listen-address {2}\[::1\]:8118$/m, "").replace(/^logdir .*$/m, `logdir ${dir}`));
        return { file: "privoxy", args: ["--no-daemon", conf] };
      },
    },
    goServer(installed, "http", true),
    goServer(installed, "socks5", true),
  ];
}

/** The address the shipped squid connects to targets from (a loopback address of its own). */
export const SQUID_EXIT = "127.0.0.2";

/**
 * Servers that allow CONNECT to port 443 alone, and carry requests for `http` URLs to any port: squid with the
 * configuration its Debian package ships (`http_access deny CONNECT !SSL_ports`; loopback admitted without credentials),
 * only the port and the files moved into the test's folder, and its targets reached from {@link SQUID_EXIT}; tinyproxy with the two `ConnectPort` lines its shipped
 * configuration suggests (443 and 563), and Apache httpd without an `AllowCONNECT` line (its default: the same two),
 * both requiring a username and password.
 */
function connect443Servers(): Server[] {
  return [
    {
      name: "squid (shipped configuration)",
      protocol: "http",
      open: true,
      command: (port, dir) => {
        const shipped = readFileSync("/etc/squid/squid.conf", "utf8");
        if (!/^http_port 3128$/m.test(shipped) || !/^http_access deny CONNECT !SSL_ports$/m.test(shipped)) {
          throw new Error("/etc/squid/squid.conf is not the configuration Debian's squid ships (http_port 3128, CONNECT to SSL_ports only)");
        }
        const conf = join(dir, `squid-shipped-${port}.conf`);
        writeFileSync(conf, [
          shipped.replace(/^http_port 3128$/m, `http_port 127.0.0.1:${port}`).replace(/^coredump_dir .*$/m, `coredump_dir ${dir}`),
          "cache deny all",
          "cache_mem 8 MB",
          "access_log none",
          // Out from another address than the checks come from: a target tells the proxy's exit from its caller.
          `tcp_outgoing_address ${SQUID_EXIT}`,
          `cache_log ${join(dir, `squid-shipped-${port}-cache.log`)}`,
          `pid_filename ${join(dir, `squid-shipped-${port}.pid`)}`,
          "shutdown_lifetime 0 seconds",
        ].join("\n"));
        return { file: "squid", args: ["-N", "-f", conf] };
      },
    },
    {
      name: "tinyproxy (ConnectPort 443)",
      protocol: "http",
      command: (port, dir) => {
        const conf = join(dir, `tinyproxy-443-${port}.conf`);
        writeFileSync(conf, [`Port ${port}`, "Listen 127.0.0.1", "Timeout 60", `BasicAuth ${USER} ${PASSWORD}`, "Allow 127.0.0.1", "ConnectPort 443", "ConnectPort 563", "LogLevel Warning", `PidFile "${join(dir, `tinyproxy-443-${port}.pid`)}"`].join("\n"));
        return { file: "tinyproxy", args: ["-d", "-c", conf] };
      },
    },
    apacheServer("Apache httpd (AllowCONNECT by default)"),
  ];
}

/**
 * Installs (when missing) and starts every server; each listens on a port of its own on 127.0.0.1. With `open`, the
 * servers that ask no credentials ({@link openServers}); their `username` and `password` are empty. With `connect443`,
 * those that allow CONNECT to port 443 alone ({@link connect443Servers}). With `closesAtConnect`, goproxy behind a
 * credentials check, which refuses a CONNECT by closing the connection where others answer `407`.
 */
export async function startRealProxies(options: { open?: boolean; connect443?: boolean; closesAtConnect?: boolean } = {}): Promise<RealProxies> {
  const [pythonDir = "", goProxies = ""] = execFileSync(join(REPO_ROOT, "scripts", "ensure-proxies"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n");
  const installed = { pythonDir, goProxies };
  const chosen = options.closesAtConnect ? [goServer(installed, "http")] : options.open ? openServers(installed) : options.connect443 ? connect443Servers() : servers(installed);
  const dir = mkdtempSync(join(tmpdir(), "pulumi-proxy-real-proxies-"));
  // squid and tinyproxy drop to unprivileged users that read their files here.
  chmodSync(dir, 0o755);
  const children: ChildProcess[] = [];
  // Each server leads a process group of its own: Dante and squid start helpers that a signal to the group ends too.
  const stop = async () => {
    await Promise.all(children.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        resolve();
      }
    })));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const proxies: RealProxy[] = [];
    for (const server of chosen) {
      const port = await freePort();
      const { file, args, env } = server.command(port, dir);
      const child = spawn(file, args, { cwd: dir, env: env ?? process.env, stdio: "ignore", detached: true });
      children.push(child);
      await listening(port, server.name);
      const credentials = options.open || server.open ? { username: "", password: "" } : { username: server.username ?? USER, password: server.password ?? PASSWORD };
      proxies.push({ name: server.name, protocol: server.protocol, port, ...credentials });
    }
    return { proxies, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
