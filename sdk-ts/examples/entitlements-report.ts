/**
 * An example a downstream team might start from: count an app's entitlements by kind, with OAuth2 client
 * credentials, and report a refused request by its error code.
 *
 *     node build/examples/entitlements-report.js http://127.0.0.1:8080 app-github
 */

import { AccessGov, ApiError, ClientCredentials } from "@accessgov/client";

const [baseUrl = "http://127.0.0.1:8080", appId = "app-github"] = process.argv.slice(2);
const api = new AccessGov({
  baseUrl,
  credentials: new ClientCredentials({ clientId: process.env.CLIENT_ID ?? "demo-client", clientSecret: process.env.CLIENT_SECRET ?? "demo-client-secret" }),
});

const byKind = new Map<string, number>();
try {
  for await (const item of api.paginate("list_app_entitlements", { path: { app_id: appId }, query: { page_size: 100 } })) {
    const kind = item.appEntitlement?.slug?.split("-")[0] ?? "unknown";
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  console.error(`listing ${appId} failed: ${error.status} ${error.code} ${error.message}`);
  process.exitCode = 1;
}
for (const [kind, count] of [...byKind].sort()) console.log(`${kind}\t${count}`);
