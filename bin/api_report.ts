/*
 * `npm run api:check` and `npm run api:update`: the package's public
 * surface (every subpath of package.json's `exports`, ./api_report/) against
 * the checked-in api/report.md, and docs/reference/exports.md against both.
 *
 *   node bin/api_report.ts            check: exit 1 with a diff when the
 *                                     code's surface differs from the report,
 *                                     or the reference misses an export
 *   node bin/api_report.ts --update   rewrite api/report.md
 *   --root <dir>                      another package (the tests use a copy)
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { extractApi } from './api_report/extract.ts'
import { diffLines, documentationGaps, renderReport } from './api_report/report.ts'

export const REPORT = 'api/report.md'
export const REFERENCE = 'docs/reference/exports.md'

const { values } = parseArgs({
  options: {
    update: { type: 'boolean', default: false },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
  },
})
const root = resolve(values.root)
const reportPath = join(root, REPORT)

const actual = renderReport(await extractApi(root))
const current = await readFile(reportPath, 'utf8').catch(() => '')

if (values.update) {
  await mkdir(dirname(reportPath), { recursive: true })
  await writeFile(reportPath, actual)
  console.log(current === actual ? `${REPORT} is up to date` : `${REPORT} rewritten`)
} else {
  const diff = diffLines(current, actual)
  if (diff.length) {
    console.error(`The public surface differs from ${REPORT} (- the report, + the code):\n`)
    console.error(diff.join('\n'))
    console.error(
      `\nIf the change is meant, run \`npm run api:update\`, review the report's diff and describe new exports in ${REFERENCE}.`
    )
    process.exitCode = 1
  } else {
    console.log(`${REPORT} matches the code`)
  }
}

const reference = await readFile(join(root, REFERENCE), 'utf8').catch(() => '')
const gaps = documentationGaps(actual, reference)
if (gaps.length) {
  console.error(
    `\n${REFERENCE} and the exports disagree:\n${gaps.map((gap) => `  ${gap}`).join('\n')}`
  )
  process.exitCode = 1
}
