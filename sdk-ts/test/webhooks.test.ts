/**
 * Both sides of the signed webhook, without a server: the contract's HMAC test vector, the receiver's verdicts
 * (each the status and code a listener answers), and the sender's JWTs read back with jose.
 */

import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { decodeProtectedHeader, jwtVerify } from "jose";

import { bodyHash, hmacSignature, MAX_BODY_BYTES, verifyWebhook, WebhookSender, WebhookVerificationError } from "@accessgov/client";

import { env } from "./support.js";

interface Vector {
  secret: string;
  timestamp: string;
  eventId: string;
  body: string;
  signature: string;
}

// The vector as the contract states it (`x-hmac-test-vector` on the webhook operation of the bundle).
const spec = JSON.parse(readFileSync(env("ACCESSGOV_BUNDLE"), "utf8")) as {
  paths: Record<string, { post?: { "x-hmac-test-vector"?: Vector } }>;
};
const vector = spec.paths["/api/v1/webhooks/incoming/{listener_id}"]?.post?.["x-hmac-test-vector"];

describe("HMAC", () => {
  test("the contract's test vector", async () => {
    assert.ok(vector, "the bundle has an x-hmac-test-vector");
    assert.equal(hmacSignature(vector.secret, vector.timestamp, vector.eventId, vector.body), vector.signature);
    assert.equal(hmacSignature(vector.secret, vector.timestamp, vector.eventId, Buffer.from(vector.body)), vector.signature);
    const sender = new WebhookSender({ url: "https://example.accessgov.example/api/v1/webhooks/incoming/lst_1", secret: vector.secret });
    const headers = await sender.headers(Buffer.from(vector.body), { eventId: vector.eventId, timestamp: Number(vector.timestamp) });
    assert.equal(headers["webhook-signature"], vector.signature);
    assert.equal(headers["webhook-timestamp"], vector.timestamp);
    assert.equal(headers["webhook-event-id"], vector.eventId);
    assert.equal(headers["content-type"], "application/json");
    sender.close();
  });

  test("the key is the secret's text, not its base64 decoding; the body's exact bytes count", () => {
    assert.ok(vector);
    const decodedKey = Buffer.from(vector.secret, "base64url").toString("latin1");
    assert.notEqual(hmacSignature(decodedKey, vector.timestamp, vector.eventId, vector.body), vector.signature);
    assert.notEqual(hmacSignature(vector.secret, vector.timestamp, vector.eventId, `${vector.body} `), vector.signature);
    assert.equal(bodyHash('{"orderId":"A-1001","amount":42}'), "sXr1yEZx1auPLQkAMu6YQKnJOc211q0WbJBbITEoKOs");
  });

  const secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I";
  const now = 1_767_225_600_000;
  function signed(body: string, overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    const timestamp = String(now / 1000);
    const eventId = "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b";
    return {
      "webhook-timestamp": timestamp,
      "webhook-event-id": eventId,
      "webhook-signature": hmacSignature(secret, timestamp, eventId, body),
      ...overrides,
    };
  }

  test("a receiver accepts what the sender signs, with either of two secrets (a rotation)", () => {
    const body = '{"orderId":"A-1"}';
    const verified = verifyWebhook({ secret, headers: signed(body), body, now });
    assert.deepEqual(verified, { eventId: "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b", timestamp: now / 1000 });
    assert.ok(verifyWebhook({ secret: ["new-secret", secret], headers: new Headers(signed(body) as Record<string, string>), body, now }));
  });

  const refusals: [string, () => void, number, string][] = [
    ["a changed body", () => verifyWebhook({ secret, headers: signed('{"a":1}'), body: '{"a":2}', now }), 401, "SIGNATURE_MISMATCH"],
    ["another secret", () => verifyWebhook({ secret: "other", headers: signed("{}"), body: "{}", now }), 401, "SIGNATURE_MISMATCH"],
    ["a padded signature", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-signature": `${hmacSignature(secret, String(now / 1000), "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b", "{}")}=` }), body: "{}", now }), 401, "SIGNATURE_MISMATCH"],
    ["a v1, prefix", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-signature": `v1,${hmacSignature(secret, String(now / 1000), "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b", "{}")}` }), body: "{}", now }), 401, "SIGNATURE_MISMATCH"],
    ["no signature", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-signature": undefined }), body: "{}", now }), 401, "MISSING_AUTHENTICATION"],
    ["no timestamp", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-timestamp": undefined }), body: "{}", now }), 400, "MISSING_HEADER"],
    ["a timestamp with a fraction", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-timestamp": "1767225600.5" }), body: "{}", now }), 400, "INVALID_TIMESTAMP"],
    ["a timestamp 301 s old", () => verifyWebhook({ secret, headers: signed("{}"), body: "{}", now: now + 301_000 }), 400, "TIMESTAMP_OUT_OF_WINDOW"],
    ["an event id that is no UUID", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-event-id": "evt-1" }), body: "{}", now }), 400, "INVALID_EVENT_ID"],
    ["a UUID of version 1", () => verifyWebhook({ secret, headers: signed("{}", { "webhook-event-id": "7f1d2c3b-4a5e-1f60-8a7b-9c0d1e2f3a4b" }), body: "{}", now }), 400, "INVALID_EVENT_ID"],
    ["a body over 64 KB", () => verifyWebhook({ secret, headers: signed("{}"), body: "x".repeat(MAX_BODY_BYTES + 1), now }), 413, "PAYLOAD_TOO_LARGE"],
  ];
  for (const [name, verify, status, code] of refusals) {
    test(`a receiver refuses ${name}: ${status} ${code}`, () => {
      assert.throws(verify, (error: unknown) => error instanceof WebhookVerificationError && error.status === status && error.code === code);
    });
  }

  test("300 s either way is inside the window", () => {
    const body = "{}";
    assert.ok(verifyWebhook({ secret, headers: signed(body), body, now: now + 300_000 }));
    assert.ok(verifyWebhook({ secret, headers: signed(body), body, now: now - 300_000 }));
  });
});

describe("JWT senders", () => {
  const keys: [string, KeyObject, KeyObject][] = [
    ["RS256", ...pair(generateKeyPairSync("rsa", { modulusLength: 2048 }))],
    ["ES256", ...pair(generateKeyPairSync("ec", { namedCurve: "P-256" }))],
    ["EdDSA", ...pair(generateKeyPairSync("ed25519"))],
  ];
  function pair(keys: { privateKey: KeyObject; publicKey: KeyObject }): [KeyObject, KeyObject] {
    return [keys.privateKey, keys.publicKey];
  }

  for (const [algorithm, privateKey, publicKey] of keys) {
    test(`${algorithm}: the claims the listener checks, signed with the key's algorithm`, async () => {
      const url = "https://example.accessgov.example/api/v1/webhooks/incoming/lst_jwt";
      const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
      const sender = new WebhookSender({ url, privateKey: pem, kid: "sender-key-1", tenantBaseUrl: "https://example.accessgov.example", clock: () => 1_767_225_600_000 });
      const body = '{"orderId":"A-1001"}';
      const eventId = randomUUID();
      const headers = await sender.headers(body, { eventId });
      const token = headers.authorization?.replace(/^Bearer /, "") ?? "";
      assert.deepEqual(decodeProtectedHeader(token), { alg: algorithm, kid: "sender-key-1", typ: "JWT" });
      const { payload } = await jwtVerify(token, publicKey, {
        algorithms: [algorithm],
        audience: url,
        subject: "https://example.accessgov.example",
        currentDate: new Date(1_767_225_600_000),
      });
      assert.equal(payload.jti, eventId);
      assert.equal(headers["webhook-event-id"], eventId);
      assert.equal(payload.htm, "POST");
      assert.equal(payload.htb_s256, bodyHash(body));
      assert.equal(payload.iat, 1_767_225_600);
      assert.equal(payload.exp, 1_767_225_600 + 300);
      assert.equal(headers["webhook-signature"], undefined);
      sender.close();
    });
  }

  test("a lifetime over 10 minutes, a key of another kind, or both methods at once are refused", () => {
    const ed = generateKeyPairSync("ed25519").privateKey;
    const common = { url: "https://x.example/h", kid: "k", tenantBaseUrl: "https://x.example" };
    assert.throws(() => new WebhookSender({ ...common, privateKey: ed, jwtLifetimeSeconds: 601 }), RangeError);
    assert.throws(() => new WebhookSender({ ...common, privateKey: generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey }), TypeError);
    assert.throws(() => new WebhookSender({ ...common, privateKey: ed, secret: "s" } as never), TypeError);
  });
});
