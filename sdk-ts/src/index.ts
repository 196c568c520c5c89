/**
 * `@accessgov/client`: the TypeScript SDK of the Access Governance API.
 *
 * - `AccessGov`: every operation as a method, API-token or OAuth2 authentication, bounded exchanges (deadline,
 *   body cap, page bound), retries for idempotent calls, typed errors, `for await` paging;
 * - `WebhookSender` and `verifyWebhook`: both sides of the signed inbound webhook (HMAC, JWT);
 * - the contract's types: `Schemas["Task"]`, or `import type { Task } from "@accessgov/client/schema"`.
 */

export { AccessGov, type AccessGovOptions, type CallOptions, type PaginateArguments, type PaginateOptions } from "./client.js";
export {
  METHOD_NAMES,
  OPERATIONS,
  type ItemOf,
  type OperationId,
  type OperationInfo,
  type PagedOperationId,
  type PagedRequestOf,
  type PagingInfo,
  type RequestOf,
  type ResultOf,
} from "./catalog.js";
export {
  AccessGovError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ClientError,
  ConflictError,
  ConnectionError,
  DeadlineExceededError,
  errorClass,
  InvalidResponseError,
  NotFoundError,
  PageLimitError,
  PagingError,
  PagingLoopError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  type ErrorBody,
  type ErrorDetail,
  type OAuthErrorBody,
} from "./errors.js";
export { CONTRACT_VERSION, TOKEN_URL } from "./generated/operations.js";
export type { components, operations, paths, Schemas } from "./generated/types.js";
export { ClientCredentials, type ClientCredentialsOptions } from "./oauth.js";
export { isJsonType, MAX_JSON_DEPTH } from "./answers.js";
export { DEFAULT_MAX_PAGES } from "./paging.js";
export { DEFAULT_RETRY, NO_RETRY, type RetryOption, type RetryPolicy, type Sleep } from "./retry.js";
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, MAX_CODINGS, type TransportOptions } from "./transport.js";
export type { AtMostOneNonNull, ExactlyOne } from "./unions.js";
export {
  b64url,
  bodyHash,
  hmacSignature,
  MAX_BODY_BYTES,
  MAX_JWT_LIFETIME_SECONDS,
  TIMESTAMP_WINDOW_SECONDS,
  verifyWebhook,
  WebhookSender,
  WebhookVerificationError,
  type Delivery,
  type HmacSenderOptions,
  type JwtSenderOptions,
  type VerifiedDelivery,
  type VerifyOptions,
  type WebhookSenderOptions,
} from "./webhooks.js";
