/**
 * The loopback certificate in ./tls (127.0.0.1–3 and localhost, self-signed:
 * its own root), for test servers that speak https: the local fediverse web
 * (WebFinger is https only) and the local WebSub hub (a subscriber sends its
 * secret to https hubs only). A child process trusts it through
 * NODE_EXTRA_CA_CERTS=LOOPBACK_CERTIFICATE (checked as any certificate is); a
 * test process cannot add a root once started, so it calls
 * `trustLoopbackCertificate()`, which turns certificate checks off for that
 * process (these tests contact only loopback servers).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), "tls");

/** The loopback certificate, its own root. */
export const LOOPBACK_CERTIFICATE = path.join(folder, "loopback-cert.pem");

/** The loopback key pair, test use only. */
export const loopbackTls = {
  key: readFileSync(path.join(folder, "loopback-key.pem"), "utf8"),
  cert: readFileSync(LOOPBACK_CERTIFICATE, "utf8"),
};

/** Makes this process accept the loopback certificate (Node reads the variable at each TLS connection). */
export function trustLoopbackCertificate(): void {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
}
