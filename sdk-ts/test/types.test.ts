/**
 * The types say what the contract says. Checked by the compiler (`tsc --strict` of the harness: each
 * `@ts-expect-error` must be an error, or the compile fails) and run as ordinary tests.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { AccessGov, OPERATIONS, type ExactlyOne, type ItemOf, type RequestOf, type ResultOf, type Schemas } from "@accessgov/client";
import type { Task, TaskState } from "@accessgov/client/schema";

test("open enumerations: the known values, and any other string", () => {
  const known: TaskState = "TASK_STATE_OPEN";
  const unknown: TaskState = "TASK_STATE_ADDED_NEXT_YEAR";
  // @ts-expect-error a number is not a task state
  const wrong: TaskState = 42;
  assert.deepEqual([known, unknown, wrong], ["TASK_STATE_OPEN", "TASK_STATE_ADDED_NEXT_YEAR", 42]);
});

test("exactly one of: a task type has one member, never two or none", () => {
  const grant: Schemas["TaskType"] = { grant: {} };
  // @ts-expect-error two members of an exactly-one-of union
  const both: Schemas["TaskType"] = { grant: {}, revoke: {} };
  // @ts-expect-error no member of an exactly-one-of union
  const none: Schemas["TaskType"] = {};
  const narrowed = (type: Schemas["TaskType"]): string => ("grant" in type && type.grant ? "grant" : "other");
  assert.equal(narrowed(grant), "grant");
  assert.ok(both && none);
  // A policy step is one kind; a form field one kind and one config (two groups).
  const step: Schemas["PolicyStep"] = { approval: {} };
  // @ts-expect-error a field needs one kind and one config
  const field: Schemas["Field"] = { stringField: {} };
  assert.ok(step && field);
  type Two = ExactlyOne<{ a?: number; b?: string; c?: boolean }, "a" | "b">;
  const ok: Two = { a: 1, c: true };
  assert.equal(ok.a, 1);
});

test("at most one non-null: an action task's targets", () => {
  const one: Schemas["TaskTypeAction"] = { scopeRole: { scopeId: "s", roleId: "r" }, toolCall: null };
  const none: Schemas["TaskTypeAction"] = { finding: null };
  // @ts-expect-error two targets set
  const two: Schemas["TaskTypeAction"] = { scopeRole: { scopeId: "s", roleId: "r" }, finding: { findingId: "f" } };
  assert.ok(one && none && two);
});

test("int64 travels as a decimal string; nullable fields admit null", () => {
  const task: Task = { numericId: "9007199254740993" };
  // @ts-expect-error an int64 is a string, never a number that loses digits
  const lossy: Task = { numericId: 9007199254740993 };
  const page: ResultOf<"list_app_entitlements"> = { list: [], nextPageToken: "" };
  assert.equal(task.numericId, "9007199254740993");
  assert.ok(lossy && page);
});

test("requests and results by operation", () => {
  const restart: RequestOf<"restart_task"> = { path: { task_id: "1001" }, body: { comment: "c" } };
  // @ts-expect-error a restart needs its task id
  const noPath: RequestOf<"restart_task"> = { body: {} };
  const item: ItemOf<"list_app_entitlements"> = { appEntitlement: { id: "e" } };
  assert.equal(OPERATIONS.list_app_entitlements.paging.items, "list");
  assert.ok(restart && noPath && item);
});

test("a walk needs what its operation needs, and sets the page token itself", () => {
  const api = new AccessGov({ baseUrl: "http://127.0.0.1:1", token: "t" });
  const walk = api.paginate("list_app_entitlements", { path: { app_id: "a" }, query: { page_size: 50 } });
  // @ts-expect-error the app id is required
  const noPath = () => api.paginate("list_app_entitlements");
  // @ts-expect-error the walk owns the page token
  const token = () => api.paginate("list_app_entitlements", { path: { app_id: "a" }, query: { page_token: "x" } });
  // @ts-expect-error restart_task does not page
  const notPaged = () => api.paginate("restart_task", { path: { task_id: "1" } });
  assert.equal(typeof walk.next, "function");
  assert.deepEqual([typeof noPath, typeof token, typeof notPaged], ["function", "function", "function"]);
  api.close();
});
