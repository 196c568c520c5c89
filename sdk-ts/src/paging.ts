/**
 * Walk every page of a list operation, driven by its `paging` entry in the operation catalogue: the first page,
 * then the page of each `nextPageToken` until it is empty. Bounded as the Python SDK's walk is: a token the
 * server already gave is a `PagingLoopError`, and more than `maxPages` pages (default 1000) a `PageLimitError`.
 */

import { createHash } from "node:crypto";

import type { PagingInfo } from "./catalog.js";
import { InvalidResponseError, PageLimitError, PagingLoopError } from "./errors.js";

/** The Python SDK's `max_pages` default: 1000 pages per walk. */
export const DEFAULT_MAX_PAGES = 1000;

/** The tokens seen so far in one walk, and the page-count guard. */
export class Walk {
  readonly #seen = new Set<string>();
  pages = 0;

  constructor(readonly maxPages: number = DEFAULT_MAX_PAGES) {
    if (!Number.isInteger(maxPages) || maxPages < 1) throw new RangeError("maxPages must be a whole number >= 1");
  }

  /** The token to send next, `""` when the walk is over. */
  next(token: unknown): string {
    this.pages += 1;
    if (token === undefined || token === null || token === "") return "";
    if (typeof token !== "string") throw new InvalidResponseError(`the next page token must be a string, got ${typeof token}`);
    // Kept as digests, as the Python SDK keeps them: a server may hand out a token of megabytes on every page.
    const digest = createHash("sha256").update(token, "utf8").digest("base64");
    if (this.#seen.has(digest)) {
      throw new PagingLoopError(`the server returned page token ${JSON.stringify(token.slice(0, 32))}… twice (after ${this.pages} pages)`);
    }
    if (this.pages >= this.maxPages) {
      throw new PageLimitError(`more than maxPages=${this.maxPages} pages (the server still had a next page)`, this.maxPages);
    }
    this.#seen.add(digest);
    return token;
  }
}

/** `(items, nextToken)` of one parsed page; absent members read as no items and no next page. */
export function readPage(paging: PagingInfo, page: unknown): [unknown[], unknown] {
  if (page === null || typeof page !== "object") throw new InvalidResponseError("a page must be a JSON object");
  const record = page as Record<string, unknown>;
  const items = record[paging.items];
  if (items !== undefined && items !== null && !Array.isArray(items)) {
    throw new InvalidResponseError(`the page member ${paging.items} must be an array`);
  }
  const list = (items ?? []) as unknown[];
  if (list.some((item) => item === null || typeof item !== "object" || Array.isArray(item))) {
    throw new InvalidResponseError(`the page member ${paging.items} must be an array of objects`);
  }
  return [list, record[paging.nextToken]];
}

/** Every item: `fetch(undefined)` first, then `fetch(nextToken)` until the token is empty. */
export async function* iterate<Item>(
  fetch: (token: string | undefined) => Promise<unknown>,
  paging: PagingInfo,
  maxPages: number = DEFAULT_MAX_PAGES,
): AsyncGenerator<Item, void, undefined> {
  const walk = new Walk(maxPages);
  let token: string | undefined;
  for (;;) {
    const [items, next] = readPage(paging, await fetch(token));
    for (const item of items) yield item as Item;
    const following = walk.next(next);
    if (!following) return;
    token = following;
  }
}
