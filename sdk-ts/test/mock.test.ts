/**
 * Against the contract's mock (`accessgov-tools mock`, started by the harness): the SDK reads what the contract
 * documents (its examples, and bodies generated from the schemas with `Prefer: dynamic=true`).
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { AccessGov, NotFoundError, PageLimitError, PagingLoopError, WebhookSender } from "@accessgov/client";

import { env } from "./support.js";

const MOCK = env("ACCESSGOV_MOCK");
const api = new AccessGov({ baseUrl: MOCK, token: "any-token" });
after(() => api.close());

describe("the mock", () => {
  test("restart answers the documented example, with the task id asked for", async () => {
    const result = await api.restartTask({ path: { task_id: "task-from-the-mock" }, body: { comment: "mock" } });
    assert.equal(result.taskView?.task?.id, "task-from-the-mock");
    assert.ok(result.ticketActionId);
  });

  test("the last-page example ends a walk; the first-page example repeated is caught as a loop", async () => {
    const items = [];
    for await (const item of api.paginate("list_app_entitlements", { path: { app_id: "app-x" } }, { headers: { prefer: "example=lastPage" } })) {
      items.push(item);
    }
    assert.ok(items.length > 0);
    const walk = async () => {
      for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "app-x" } })) {
        // the mock answers every page with the same example, whose token never changes
      }
    };
    await assert.rejects(walk(), PagingLoopError);
  });

  test("bodies generated from the schemas parse, and a walk of random tokens stops at maxPages", async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const restarted = await api.restartTask({ path: { task_id: "t" }, body: {} }, { headers: { prefer: `dynamic=true, seed=${seed}` } });
      assert.equal(typeof restarted, "object");
    }
    const walk = async () => {
      let count = 0;
      for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } }, { headers: { prefer: "dynamic=true" }, maxPages: 5 })) {
        count += 1;
      }
      return count;
    };
    // A generated page may carry an empty token (the walk ends) or a random one (it goes on): never past 5 pages.
    try {
      await walk();
    } catch (error) {
      assert.ok(error instanceof PageLimitError || error instanceof PagingLoopError, String(error));
    }
  });

  test("a documented error status is the typed error with the example's Error body", async () => {
    await assert.rejects(api.restartTask({ path: { task_id: "x" }, body: {} }, { headers: { prefer: "code=404" } }), (error: unknown) => {
      return error instanceof NotFoundError && error.code !== "" && error.error?.code === error.code;
    });
  });

  test("the token endpoint and a webhook delivery", async () => {
    const token = await api.getToken({ body: { grant_type: "client_credentials", client_id: "c", client_secret: "s" } });
    assert.equal(typeof token.access_token, "string");
    const sender = new WebhookSender({ url: `${MOCK}/api/v1/webhooks/incoming/lst_1`, secret: "any", retry: false });
    const delivery = await sender.send({ orderId: "A-1" });
    assert.equal(delivery.status, 200);
    sender.close();
  });
});
