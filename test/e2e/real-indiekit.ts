import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { packageRoot } from "../../lib/package-root.js";
import { LOOPBACK_CERTIFICATE } from "../support/fediverse-web.js";
import { freePort } from "../support/free-port.js";

const run = promisify(execFile);

/**
 * The real Indiekit server (the kit in ../shared/indiekit-host) with this
 * plugin installed the way npm installs it: `npm pack`, unpacked, its
 * production dependencies installed for the kit's Node 24. Nothing here
 * imitates the host; it only starts it and talks HTTP to it.
 */

export const KIT_DIR = process.env.INDIEKIT_HOST_KIT ?? path.resolve(packageRoot, "..", "shared", "indiekit-host");
export const PLUGIN_NAME = "indiekit-endpoint-blogroll";

/** Why the real-host suite cannot run here, or null when it can. */
export function realHostMissing(): string | null {
  return existsSync(path.join(KIT_DIR, "setup.sh"))
    ? null
    : `the real Indiekit kit is not at ${KIT_DIR} (set INDIEKIT_HOST_KIT): real-host suite skipped`;
}

export interface Kit {
  root: string;
  node: string;
  nodedir: string;
}

let kitPromise: Promise<Kit> | null = null;

/** Runs the kit's set-up (idempotent, cached) and returns its folders. */
export function setUpKit(): Promise<Kit> {
  kitPromise ??= (async () => {
    const { stdout } = await run("bash", [path.join(KIT_DIR, "setup.sh")], { maxBuffer: 64 << 20 });
    const value = (name: string) => {
      const found = new RegExp(`^${name}=(.*)$`, "m").exec(stdout)?.[1];
      if (!found) throw new Error(`setup.sh printed no ${name}`);
      return found;
    };
    return { root: value("INDIEKIT_ROOT"), node: value("INDIEKIT_NODE"), nodedir: value("INDIEKIT_NODEDIR") };
  })();
  return kitPromise;
}

/** Environment that makes npm build native modules for the kit's Node. */
function kitNpmEnv(kit: Kit): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${path.dirname(kit.node)}:${process.env.PATH}`, npm_config_nodedir: kit.nodedir };
}

/**
 * Packs the plugin (its prepack builds it), unpacks the tarball and gives it production
 * dependencies built for Node 24 (cached by lockfile: better-sqlite3 compiles
 * from source). Returns the installed package's folder.
 */
export async function installPackedPlugin(kit: Kit, workDir: string): Promise<string> {
  // `prepack` builds a fresh dist/ first, as for a tarball handed to a site owner.
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", workDir], {
    cwd: packageRoot,
    maxBuffer: 64 << 20,
  });
  const tarball = path.join(workDir, stdout.trim().split("\n").pop()!);
  await run("tar", ["-xzf", tarball, "-C", workDir]);
  const installed = path.join(workDir, "package");

  const lock = readFileSync(path.join(packageRoot, "package-lock.json"));
  const manifest = readFileSync(path.join(installed, "package.json"));
  const dependencies = JSON.stringify(
    (JSON.parse(manifest.toString()) as { dependencies?: unknown }).dependencies ?? {},
  );
  const key = createHash("sha1").update(lock).update(dependencies).update(kit.node).digest("hex").slice(0, 12);
  const depsDir = path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"),
    "blogroll-e2e",
    `deps-${key}`,
  );
  if (!existsSync(path.join(depsDir, ".ready"))) {
    rmSync(depsDir, { recursive: true, force: true });
    mkdirSync(depsDir, { recursive: true });
    writeFileSync(path.join(depsDir, "package.json"), manifest);
    writeFileSync(path.join(depsDir, "package-lock.json"), lock);
    await run("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts=false"], {
      cwd: depsDir,
      env: kitNpmEnv(kit),
      maxBuffer: 64 << 20,
    });
    writeFileSync(path.join(depsDir, ".ready"), "");
  }
  symlinkSync(path.join(depsDir, "node_modules"), path.join(installed, "node_modules"), "dir");
  return installed;
}

/**
 * The kit has one node_modules for every run on this machine: a run holds
 * this lock from linking its copy until its host stops, so two checkouts
 * testing at once never boot each other's plugin. A lock whose holder has
 * died is taken over.
 */
export async function lockKit(kit: Kit): Promise<() => void> {
  const lock = path.join(kit.root, ".blogroll-e2e.lock");
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, "pid"), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch {
      const holder = Number(readFileSyncSafe(path.join(lock, "pid")));
      if (holder && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`the kit stayed locked by process ${holder} for 20 minutes`);
      else await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function readFileSyncSafe(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Makes `import "indiekit-endpoint-blogroll"` inside the kit find this installed copy (hold lockKit first). */
export function linkIntoKit(kit: Kit, installed: string): void {
  const link = path.join(kit.root, "node_modules", PLUGIN_NAME);
  rmSync(link, { recursive: true, force: true });
  symlinkSync(installed, link, "dir");
}

export interface HostOptions {
  /** Indiekit's dev mode: every admin request is signed in as the owner. */
  devMode: boolean;
  /** The plugin's options. */
  pluginOptions: Record<string, unknown>;
  locale?: string;
  /** The host's SECRET; none: Indiekit runs without one (its IndieAuth endpoint then answers 501). */
  secret?: string;
  publicationMe?: string;
}

export interface RunningHost {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `indiekit serve` with the plugin in a folder holding its config; resolves when it answers. */
export async function startIndiekit(kit: Kit, configDir: string, options: HostOptions): Promise<RunningHost> {
  mkdirSync(configDir, { recursive: true });
  const config = {
    application: { name: "Indiekit", locale: options.locale ?? "en" },
    publication: { me: options.publicationMe ?? "https://example.com" },
    plugins: [PLUGIN_NAME],
    [PLUGIN_NAME]: options.pluginOptions,
  };
  writeFileSync(path.join(configDir, "indiekit.config.js"), `export default ${JSON.stringify(config, null, 2)};\n`);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: options.devMode ? "development" : "production" };
  if (options.secret) env.SECRET = options.secret;
  else delete env.SECRET;
  // A bcrypt hash of some password: without one Indiekit sends every admin request to /auth/new-password.
  env.PASSWORD_SECRET = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.qPp1Yl6Jp6Iv1W1l2t0e4Ti1Q3bW";
  // Not the test runner's child-process markers: Node 24 would treat Indiekit as a test file.
  for (const name of ["MONGODB_URL", "NODE_TEST_CONTEXT", "NODE_OPTIONS"]) delete env[name];
  // The local fediverse web's and the local hub's https is checked as any certificate is, against its own root (test/support/tls).
  delete env.NODE_TLS_REJECT_UNAUTHORIZED;
  env.NODE_EXTRA_CA_CERTS = LOOPBACK_CERTIFICATE;
  const child: ChildProcess = spawn(
    kit.node,
    [path.join(kit.root, "packages", "indiekit", "bin", "cli.js"), "serve", "--port", String(port)],
    {
      cwd: configDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Indiekit builds its frontend's scripts and styles at start: tens of seconds on a busy machine.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Indiekit exited with ${child.exitCode}:\n${output}`);
    try {
      // Indiekit's own client metadata, naming this address: another test's server that took the
      // port before Indiekit bound it (the suites run side by side) must not pass for it.
      const response = await fetch(`${url}/id`);
      if (response.ok && ((await response.json()) as { client_uri?: string }).client_uri?.startsWith(url)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`Indiekit did not answer within 180 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A token signed the way the host's token endpoint signs it (jsonwebtoken with SECRET, 90 days). */
export function signHostToken(kit: Kit, secret: string, payload: Record<string, unknown>): string {
  const requireFromKit = createRequire(path.join(kit.root, "packages", "endpoint-auth", "package.json"));
  const jwt = requireFromKit("jsonwebtoken") as { sign(payload: object, secret: string, options: object): string };
  return jwt.sign(payload, secret, { expiresIn: "90d" });
}

/** A fresh working folder for one suite. */
export function workFolder(): string {
  return mkdtempSync(path.join(tmpdir(), "blogroll-indiekit-"));
}
