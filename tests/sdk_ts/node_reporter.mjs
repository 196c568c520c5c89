// A node:test reporter for tests/sdk_ts/harness.py (node_tests): one JSON line per finished test or suite, with the
// file it is in, so that one `node --test` over several files is judged file by file. TAP goes to stdout beside it.
import { inspect } from "node:util";

export default async function* reporter(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { name, file, nesting, skip, todo, details } = event.data;
    const error = event.type === "test:fail" ? inspect(details?.error, { depth: 4 }) : undefined;
    yield `${JSON.stringify({
      file: file ?? null,
      name,
      nesting,
      suite: details?.type === "suite",
      passed: event.type === "test:pass",
      skip: Boolean(skip),
      todo: Boolean(todo),
      error,
    })}\n`;
  }
}
