/**
 * Against the reference server (`accessgov serve --demo` on loopback, started by the harness): the operations a
 * downstream team calls, as it calls them.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";

import {
  AccessGov,
  AuthenticationError,
  BadRequestError,
  ClientCredentials,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  WebhookSender,
  type Schemas,
} from "@accessgov/client";

import { DEMO, env } from "./support.js";

const BASE = env("ACCESSGOV_SERVER");
const admin = new AccessGov({ baseUrl: BASE, token: DEMO.adminToken });
after(() => admin.close());

describe("paging", () => {
  test("for await walks every page of an app: 2,500 entitlements, each once", async () => {
    const ids: string[] = [];
    for await (const item of admin.paginate("list_app_entitlements", { path: { app_id: DEMO.pagingApp }, query: { page_size: 100 } })) {
      const entitlement: Schemas["AppEntitlement"] | null | undefined = item.appEntitlement;
      assert.equal(entitlement?.appId, DEMO.pagingApp);
      ids.push(entitlement?.id ?? "");
    }
    assert.equal(ids.length, DEMO.pagingAppEntitlements);
    assert.equal(new Set(ids).size, DEMO.pagingAppEntitlements);
  });

  test("the default page size (25) takes 100 pages, within the default page bound", async () => {
    let count = 0;
    for await (const _ of admin.paginate("list_app_entitlements", { path: { app_id: DEMO.pagingApp } })) count += 1;
    assert.equal(count, DEMO.pagingAppEntitlements);
  });

  test("one page by hand: its nextPageToken goes back as page_token", async () => {
    const first = await admin.listAppEntitlements({ path: { app_id: DEMO.pagingApp }, query: { page_size: 10 } });
    assert.equal(first.list?.length, 10);
    assert.ok(first.nextPageToken);
    const second = await admin.listAppEntitlements({ path: { app_id: DEMO.pagingApp }, query: { page_size: 10, page_token: first.nextPageToken } });
    assert.notEqual(second.list?.[0]?.appEntitlement?.id, first.list?.[0]?.appEntitlement?.id);
  });

  test("a page token the server did not issue is a 400 naming the parameter", async () => {
    await assert.rejects(
      admin.listAppEntitlements({ path: { app_id: DEMO.pagingApp }, query: { page_token: "not-a-token" } }),
      (error: unknown) => error instanceof BadRequestError && error.status === 400 && error.details.some((d) => d.name === "page_token"),
    );
  });
});

describe("restart", () => {
  test("by numericId with expansion, then by the id it reports", async () => {
    const byNumber = await admin.restartTask({
      path: { task_id: "1004" },
      body: { comment: "restarted by the TypeScript SDK", expandMask: { paths: ["*"] } },
    });
    const task = byNumber.taskView?.task;
    assert.equal(task?.numericId, "1004");
    assert.ok(byNumber.ticketActionId);
    assert.ok((byNumber.expanded ?? []).length > 0, "expandMask * expands the related objects");
    for (const object of byNumber.expanded ?? []) assert.equal(typeof object["@type"], "string");
    const state: Schemas["TaskState"] | undefined = task?.state;
    assert.equal(state, "TASK_STATE_OPEN");

    const byId = await admin.call("restart_task", { path: { task_id: task?.id ?? "" }, body: {} });
    assert.equal(byId.taskView?.task?.id, task?.id);
    assert.equal(byId.taskView?.task?.numericId, "1004");
    assert.equal((byId.expanded ?? []).length, 0, "nothing is expanded unless asked");
  });

  test("a closed task is a ConflictError with the Error body", async () => {
    await assert.rejects(admin.restartTask({ path: { task_id: "1007" }, body: {} }), (error: unknown) => {
      assert.ok(error instanceof ConflictError);
      assert.equal(error.status, 409);
      assert.equal(error.code, error.error?.code);
      assert.ok(error.message);
      return true;
    });
  });

  test("an unknown task is a NotFoundError; a viewer may not restart", async () => {
    await assert.rejects(admin.restartTask({ path: { task_id: "no-such-task" }, body: {} }), (error: unknown) => {
      return error instanceof NotFoundError && error.code === "NOT_FOUND" && error.headers.get("content-type")?.startsWith("application/json") === true;
    });
    const viewer = new AccessGov({ baseUrl: BASE, token: DEMO.viewerToken });
    await assert.rejects(viewer.restartTask({ path: { task_id: "1005" }, body: {} }), (error: unknown) => {
      return error instanceof PermissionDeniedError && error.status === 403 && error.code === "PERMISSION_DENIED";
    });
    viewer.close();
  });

  test("a path value is one segment: '..' does not climb out of the task path", async () => {
    await assert.rejects(admin.restartTask({ path: { task_id: ".." }, body: {} }), NotFoundError);
  });
});

describe("the token endpoint", () => {
  test("client credentials: one token for many calls, used as the bearer", async () => {
    const credentials = new ClientCredentials({ clientId: DEMO.clientId, clientSecret: DEMO.clientSecret });
    const api = new AccessGov({ baseUrl: BASE, credentials });
    const pages = await Promise.all([1, 2, 3].map(() => api.listAppEntitlements({ path: { app_id: DEMO.pagingApp } })));
    assert.equal(pages.length, 3);
    const restarted = await api.restartTask({ path: { task_id: "1003" }, body: { comment: "oauth" } });
    assert.equal(restarted.taskView?.task?.numericId, "1003");
    api.close();
  });

  test("client_secret_post and the getToken operation itself", async () => {
    const post = new AccessGov({ baseUrl: BASE, credentials: { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, authMethod: "client_secret_post" } });
    assert.ok(await post.listAppEntitlements({ path: { app_id: DEMO.pagingApp } }));
    post.close();
    const token = await admin.getToken({ body: { grant_type: "client_credentials", client_id: DEMO.clientId, client_secret: DEMO.clientSecret } });
    assert.equal(token.token_type.toLowerCase(), "bearer");
    assert.ok(token.expires_in > 0);
    const withToken = new AccessGov({ baseUrl: BASE, token: token.access_token });
    assert.ok(await withToken.listAppEntitlements({ path: { app_id: DEMO.pagingApp } }));
    withToken.close();
  });

  test("a wrong secret: AuthenticationError with the RFC 6749 body", async () => {
    const api = new AccessGov({ baseUrl: BASE, credentials: { clientId: DEMO.clientId, clientSecret: "wrong" } });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: DEMO.pagingApp } }), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.operation, "get_token");
      assert.equal(error.code, "invalid_client");
      assert.equal(error.oauthError?.error, "invalid_client");
      return true;
    });
    api.close();
  });
});

describe("webhook deliveries", () => {
  test("HMAC: the demo listener accepts a signed delivery, and a replay of its event id is a 409", async () => {
    const sender = new WebhookSender({ url: `${BASE}/api/v1/webhooks/incoming/${DEMO.hmacListener}`, secret: DEMO.hmacSecret, retry: false });
    const eventId = randomUUID();
    const delivery = await sender.send({ orderId: "A-1001", amount: 42 }, { eventId });
    assert.equal(delivery.status, 200);
    const accepted = delivery.data as Schemas["WebhookAcceptedResponse"];
    assert.equal(accepted.eventId, eventId);
    assert.match(String(accepted.automationRun?.status), /^AUTOMATION_RUN_STATUS_/);
    await assert.rejects(sender.send({ orderId: "A-1001", amount: 42 }, { eventId }), (error: unknown) => error instanceof ConflictError && error.code === "DUPLICATE_EVENT");
    sender.close();
  });

  test("HMAC: a wrong secret is refused with 401 SIGNATURE_MISMATCH", async () => {
    const sender = new WebhookSender({ url: `${BASE}/api/v1/webhooks/incoming/${DEMO.hmacListener}`, secret: "not-the-secret", retry: false });
    await assert.rejects(sender.send({ orderId: "A-1" }), (error: unknown) => error instanceof AuthenticationError && error.code === "SIGNATURE_MISMATCH");
    sender.close();
  });

  for (const [kid, file] of [["rsa-1", "rsa.pem"], ["ec-1", "ec.pem"], ["ed-1", "ed.pem"]] as const) {
    test(`JWT (${kid}): a listener created with the accessgov CLI accepts the delivery`, async () => {
      const sender = new WebhookSender({
        url: env("ACCESSGOV_JWT_LISTENER_URL"),
        audience: env("ACCESSGOV_JWT_AUDIENCE"),
        privateKey: readFileSync(path.join(env("ACCESSGOV_JWT_KEYS"), file), "utf8"),
        kid,
        tenantBaseUrl: env("ACCESSGOV_TENANT_BASE_URL"),
        retry: false,
      });
      const delivery = await sender.send({ orderId: `jwt-${kid}` });
      assert.equal(delivery.status, 200);
      sender.close();
    });
  }

  test("JWT: a token for another audience is refused with 401 INVALID_CLAIM", async () => {
    const sender = new WebhookSender({
      url: env("ACCESSGOV_JWT_LISTENER_URL"),
      privateKey: readFileSync(path.join(env("ACCESSGOV_JWT_KEYS"), "ed.pem"), "utf8"),
      kid: "ed-1",
      tenantBaseUrl: env("ACCESSGOV_TENANT_BASE_URL"),
      retry: false,
    });
    await assert.rejects(sender.send({ orderId: "wrong-aud" }), (error: unknown) => error instanceof AuthenticationError && error.code === "INVALID_CLAIM");
    sender.close();
  });
});
