/*
 * `npm run docs:check`: docs that cannot rot. Compiles every TypeScript
 * block of README.md, CONTRIBUTING.md and docs/ against the package's
 * public exports in a scratch app, and checks every relative link and
 * heading anchor; prints each failure as `file:line: message` and exits
 * 1 when there is one. A block that is not meant to compile alone says so
 * in its fence: ```ts fragment (CONTRIBUTING.md, "Docs").
 *
 * `node bin/docs_check.ts [root]` checks the docs of another tree (the
 * test's fixtures) against this package.
 */

import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkDocs } from './docs_check/check.ts'

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url))
const root = resolve(process.argv[2] ?? PACKAGE_ROOT)

const began = performance.now()
const result = await checkDocs(root, PACKAGE_ROOT)
for (const failure of result.failures) {
  console.error(`${failure.file}:${failure.line}: ${failure.message}`)
}
const seconds = ((performance.now() - began) / 1000).toFixed(1)
console.log(
  `docs:check: ${result.files} files, ${result.blocks} TypeScript blocks compiled, ` +
    `${result.fragments} fragments, ${result.failures.length} failures (${seconds} s)`
)
process.exitCode = result.failures.length > 0 ? 1 : 0
