/**
 * A 2xx answer's body read as the operation's result, or an `InvalidResponseError` saying why it is not one: the
 * Python SDK's `answers.py`, in TypeScript.
 *
 * The server is untrusted: a 2xx body must be JSON (`application/json` or a `+json` type, or no `Content-Type`),
 * in UTF-8 (a byte order mark is skipped), and at its top level what the operation returns (an object for every
 * operation of this contract: `OperationInfo.result`). Refused: HTML, an empty or cut-short body, invalid UTF-8,
 * another media type, a top-level array, string, number or `null` where an object is expected, JSON nested deeper
 * than 512 levels (`MAX_JSON_DEPTH`). Kept: members and enumeration values the SDK has never seen.
 *
 * `JSON.parse` defines every member as an own property, `__proto__`, `constructor` and `prototype` included, so a
 * body cannot change any object's prototype; the SDK copies answers only with spreads and never merges them deeply.
 */

import type { OperationInfo } from "./catalog.js";
import { InvalidResponseError, shown } from "./errors.js";
import type { IncomingAnswer } from "./transport.js";

const NO_BODY_STATUSES = new Set([204, 205]);
const UTF8 = new TextDecoder("utf-8", { fatal: true });
const SHOWN = 200;
/** Nesting deeper than this is refused before parsing (the contract's answers nest about 10 deep). */
export const MAX_JSON_DEPTH = 512;

/** Whether `text` nests arrays and objects deeper than `limit` (strings skipped; one pass, no recursion). */
function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/** Whether a `Content-Type` names JSON: `application/json` or a structured `+json` type, any parameters. */
export function isJsonType(contentType: string): boolean {
  const media = (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
  return media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
}

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The parsed result of operation `operation` from a 2xx `answer`. */
export function readResult(operation: string, info: OperationInfo, answer: IncomingAnswer): unknown {
  const where = `${operation}: HTTP ${answer.status}`;
  const refuse = (why: string, cause?: unknown): InvalidResponseError =>
    new InvalidResponseError(`${where}: ${shown(why, 400)}`, cause === undefined ? undefined : { cause });
  const body = answer.body;
  if (NO_BODY_STATUSES.has(answer.status) || (info.result === null && body.length === 0)) return undefined;
  const contentType = answer.headers.get("content-type") ?? "";
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch (error) {
    throw refuse("the body is not UTF-8", error);
  }
  if (!text.trim()) throw refuse("the body is empty, where the operation returns JSON");
  if (contentType && !isJsonType(contentType)) {
    throw refuse(`the body is ${JSON.stringify(contentType.slice(0, 100))}, not the JSON the operation returns`);
  }
  if (nestsDeeper(text, MAX_JSON_DEPTH)) throw refuse(`the body's JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw refuse("the body's JSON is nested deeper than the SDK reads", error);
    const message = error instanceof Error ? error.message.slice(0, SHOWN) : String(error);
    throw refuse(`the body is not valid JSON (${message})`, error);
  }
  const expected = info.result;
  const fits =
    expected === "object" ? typeof value === "object" && value !== null && !Array.isArray(value) : expected === "array" ? Array.isArray(value) : true;
  if (!fits) throw refuse(`the body is ${kindOf(value)}, where the operation returns ${expected === "object" ? "a JSON object" : "a JSON array"}`);
  return value;
}
