/**
 * The operation catalogue the SDK runs on (`OPERATIONS`, generated into `generated/operations.ts` from the SDK
 * variant's `x-paginated` and `x-idempotent`) and the types of each operation's request and result, read from the
 * generated `operations` types, so that a new operation of the contract is callable without SDK code.
 */

import type { operations } from "./generated/schema.js";
import { METHOD_NAMES, OPERATIONS } from "./generated/operations.js";

/** How a list operation pages: the query parameter that carries the token, and the response members to read. */
export interface PagingInfo {
  readonly tokenParam: string;
  readonly nextToken: string;
  readonly items: string;
}

/** One operation: HTTP method and path template, idempotency, credentials, request media type, paging. */
export interface OperationInfo {
  readonly method: string;
  readonly path: string;
  /** Whether the request may be repeated (the method's semantics, or the contract's `x-idempotent`). */
  readonly idempotent: boolean;
  /** Whether it takes the tenant's bearer credential (API token or OAuth2 access token). */
  readonly credential: boolean;
  readonly bodyType: string | null;
  /** What a 2xx answer's JSON body is at its top level (null: no 2xx answer has a JSON body). */
  readonly result: "object" | "array" | "any" | null;
  readonly paging: PagingInfo | null;
}

export { METHOD_NAMES, OPERATIONS };

/** An operationId of the contract, e.g. `"list_app_entitlements"`. */
export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** The operations that page (`x-paginated`). */
export type PagedOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K]["paging"] extends null ? never : K;
}[OperationId];

type Parameters<K extends OperationId> = operations[K] extends { parameters: infer P } ? P : never;
type Part<K extends OperationId, Where extends string> =
  Parameters<K> extends { [W in Where]?: infer V } ? Exclude<V, undefined> : never;
type HasKeys<T> = [T] extends [never] ? false : T extends Record<string, unknown> ? (keyof T extends never ? false : true) : false;
type AllOptional<T> = {} extends T ? true : false;

type Slot<Name extends string, T> =
  HasKeys<T> extends true
    ? AllOptional<T> extends true
      ? { [N in Name]?: T }
      : { [N in Name]: T }
    : { [N in Name]?: never };

type RequestBodyOf<K extends OperationId> = operations[K] extends { requestBody?: infer B } ? B : never;
type BodyContent<B> = B extends { content: infer C } ? C[keyof C] : never;
type BodySlot<K extends OperationId> =
  [RequestBodyOf<K>] extends [never]
    ? { body?: never }
    : undefined extends RequestBodyOf<K>
      ? { body?: BodyContent<Exclude<RequestBodyOf<K>, undefined>> }
      : { body: BodyContent<RequestBodyOf<K>> };

/** What a call of operation `K` takes: path and query parameters, request headers, the body. */
export type RequestOf<K extends OperationId> = Slot<"path", Part<K, "path">> &
  Slot<"query", Part<K, "query">> &
  Slot<"header", Part<K, "header">> &
  BodySlot<K>;

type Responses<K extends OperationId> = operations[K] extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type Content<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** The parsed body of a successful (2xx) answer of operation `K`. */
export type ResultOf<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus ? Content<Responses<K>[S]> : never;
}[keyof Responses<K>];

type PagingOf<K extends PagedOperationId> = Exclude<(typeof OPERATIONS)[K]["paging"], null>;

/** One item of a paged operation's results (an element of its `list`). */
export type ItemOf<K extends PagedOperationId> =
  ResultOf<K> extends infer Page
    ? Page extends { [I in PagingOf<K>["items"]]?: infer Items }
      ? Items extends ReadonlyArray<infer Item> | null | undefined
        ? Item
        : never
      : never
    : never;

/** A paged operation's request without its page token (the walk sets it). */
export type PagedRequestOf<K extends PagedOperationId> = Omit<RequestOf<K>, "query"> & {
  query?: Omit<NonNullable<Part<K, "query">>, PagingOf<K>["tokenParam"]>;
};

/** Arguments of an operation's method: the request, optional when nothing in it is required. */
export type CallArguments<K extends OperationId, Options> =
  {} extends RequestOf<K> ? [request?: RequestOf<K>, options?: Options] : [request: RequestOf<K>, options?: Options];

/** The client's method for every operation (`restartTask`, `listAppEntitlements`, ...). */
export type OperationMethods<Options> = {
  [M in keyof typeof METHOD_NAMES]: (...args: CallArguments<(typeof METHOD_NAMES)[M], Options>) => Promise<ResultOf<(typeof METHOD_NAMES)[M]>>;
};

/** The operation of an operationId, or a TypeError naming the known ones. */
export function operation(id: string): OperationInfo {
  if (!Object.hasOwn(OPERATIONS, id)) {
    throw new TypeError(`unknown operation ${JSON.stringify(id)}; known: ${Object.keys(OPERATIONS).sort().join(", ")}`);
  }
  return OPERATIONS[id as OperationId];
}
