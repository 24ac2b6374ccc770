/**
 * A second process for tests: the plugin in the standalone host on the SQLite
 * file named by BLOGROLL_DATABASE, scheduler off, on an ephemeral loopback
 * port. Prints "listening <base URL> <mount path>" once it serves; stops on
 * SIGTERM. Run with `node --import tsx`.
 */
import type { AddressInfo } from "node:net";
import BlogrollEndpoint from "../../index.js";
import { createStandaloneApp } from "../../lib/standalone/app.js";

const plugin = new BlogrollEndpoint({
  databasePath: process.env.BLOGROLL_DATABASE,
  mongodbUrl: null,
  scheduler: false,
});
const { app } = await createStandaloneApp(plugin, { adminToken: "second-process-admin-token" });
await plugin.getStorage();
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port} ${plugin.mountPath}`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void plugin.destroy().then(() => process.exit(0));
});
