import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

// TLS material for the fronts. The Go clients under test (kbc, keboola-sdk-go) only speak HTTPS
// to a stack, and kbc only HTTP/2 over TLS, so the emulator (plain HTTP/1.1) is put behind TLS
// fronts whose certificate a local CA signs. Go trusts that CA through SSL_CERT_FILE, pointed at
// a bundle of the system roots plus the CA; nothing is installed into the machine's trust store.

export interface TlsMaterial {
  /** The bundle to give Go as SSL_CERT_FILE. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
  /** The CA's private key, removed at the end of a run unless --keep. */
  caKeyFile: string;
}

/** The names the server certificate covers: localhost (the fronts) and the AWS S3 names the Go SDK dials (the S3 bridge). */
const BASE_NAMES = [
  "DNS:localhost",
  "IP:127.0.0.1",
  "DNS:s3.amazonaws.com",
  "DNS:*.s3.amazonaws.com",
  "DNS:s3.us-east-1.amazonaws.com",
  "DNS:*.s3.us-east-1.amazonaws.com",
  "DNS:*.s3.dualstack.us-east-1.amazonaws.com",
];

const SYSTEM_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"];

/** Creates `<dir>/ca.pem`, a server certificate for `BASE_NAMES` plus `extraHosts`, and the bundle. */
export function makeCerts(dir: string, caName: string, extraHosts: string[] = []): TlsMaterial {
  fs.mkdirSync(dir, { recursive: true });
  const p = (f: string) => path.join(dir, f);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "3",
    "-subj", `/CN=${caName}`, "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost");
  const names = [...BASE_NAMES, ...extraHosts.map((h) => `DNS:${h}`)];
  fs.writeFileSync(p("ext.cnf"), [`subjectAltName=${names.join(",")}`, "extendedKeyUsage=serverAuth", "basicConstraints=CA:FALSE", ""].join("\n"));
  openssl("x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
    "-out", p("server.pem"), "-days", "3", "-extfile", p("ext.cnf"));
  const system = SYSTEM_BUNDLES.find((f) => fs.existsSync(f));
  fs.writeFileSync(p("bundle.pem"), (system ? fs.readFileSync(system, "utf8") + "\n" : "") + fs.readFileSync(p("ca.pem"), "utf8"));
  return { caFile: p("bundle.pem"), key: fs.readFileSync(p("server.key")), cert: fs.readFileSync(p("server.pem")), caKeyFile: p("ca.key") };
}
