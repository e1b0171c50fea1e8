/*
 * The API report (bin/api_report.ts, api/report.md): a new export makes
 * `npm run api:check` fail with a diff naming it until the report is
 * rewritten and the export described in docs/reference/exports.md; and
 * the checked-in report, the reference and package.json's `exports` agree.
 * CI runs the check itself against the package's code (.ci/run).
 */

import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { test } from '@japa/runner'
import { extractApi } from '../../bin/api_report/extract.ts'
import {
  diffLines,
  documentationGaps,
  namesBySubpath,
  renderReport,
  specifier,
} from '../../bin/api_report/report.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = new URL('../../', import.meta.url)
const read = (path: string) => readFile(new URL(path, ROOT), 'utf8')

/** `npm run api:check` (or `:update`) on another package's root */
async function apiReport(root: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [TS_HOOKS, 'bin/api_report.ts', '--root', root, ...args],
      { cwd: new URL('.', ROOT) }
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** A package of one subpath, laid out as this one: a source condition in `exports` */
const TINY_PACKAGE = {
  'package.json': JSON.stringify({
    name: 'tiny',
    type: 'module',
    exports: { '.': { 'adonis-agent-inbox-source': './index.ts', 'default': './build/index.js' } },
  }),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      strict: true,
      module: 'nodenext',
      target: 'esnext',
      noEmit: true,
      allowImportingTsExtensions: true,
      types: [],
    },
  }),
  'index.ts': 'export function greet(name: string) {\n  return `hello ${name}`\n}\n',
  'docs/reference/exports.md': '## `adonis-agent-inbox`\n\n- `greet`: says hello\n',
}

test.group('API report', () => {
  test('a new export fails the check with a diff until the report and the reference name it', async ({
    assert,
    fs,
  }) => {
    for (const [path, text] of Object.entries(TINY_PACKAGE)) await fs.create(path, text)
    const root = fs.basePath
    const report = renderReport(await extractApi(root))
    assert.include(report, 'function greet(name: string): string')
    await fs.create('api/report.md', report)

    await fs.create(
      'index.ts',
      TINY_PACKAGE['index.ts'] + 'export const shout = (text: string) => text.toUpperCase()\n'
    )
    const added = await apiReport(root)
    assert.equal(added.code, 1)
    assert.include(added.stderr, '+ ### `shout` (const)')
    assert.include(added.stderr, '+ const shout: (text: string) => string')
    assert.include(added.stderr, '`shout` is exported but not described')

    // Rewriting the report is not enough: the reference must describe it
    const updated = await apiReport(root, '--update')
    assert.include(updated.stderr, '`shout` is exported but not described')
    assert.equal(updated.code, 1)
    assert.equal(await fs.contents('api/report.md'), renderReport(await extractApi(root)))

    await fs.create(
      'docs/reference/exports.md',
      TINY_PACKAGE['docs/reference/exports.md'] + '- `shout`: says it louder\n'
    )
    const described = await apiReport(root)
    assert.equal(described.code, 0, described.stderr)
    assert.include(described.stdout, 'api/report.md matches the code')
  }).timeout(60_000)

  test('the line diff marks what the report lacks and what it has in excess', ({ assert }) => {
    assert.deepEqual(diffLines('a\nb\n', 'a\nb\n'), [])
    assert.deepEqual(diffLines('a\nb\nc\nd\ne\nf\n', 'a\nb\nc\nX\nd\ne\nf\n', 1), [
      '@@ line 3 @@',
      '  c',
      '+ X',
      '  d',
    ])
    assert.deepEqual(diffLines('a\nb\n', 'a\nc\n'), ['@@ line 1 @@', '  a', '- b', '+ c', '  '])
  })

  test('the reference must describe every export of a subpath, and nothing else', ({ assert }) => {
    const report = '## `pkg`\n\n### `a` (function)\n\n```ts\n- `notAName`\n```\n\n### `b` (type)\n'
    assert.deepEqual(documentationGaps(report, '## `pkg`\n\n- `a`: one\n- `b`: two\n'), [])
    assert.deepEqual(documentationGaps(report, '## `pkg`\n\n- `a`: one\n- `c`: three\n'), [
      'pkg: `b` is exported but not described',
      'pkg: `c` is described but not exported',
    ])
    assert.deepEqual(documentationGaps(report, '## `other`\n'), [
      'pkg: no "## `pkg`" section',
      'other: described, but package.json exports no such subpath',
    ])
  })

  test('the checked-in report covers every subpath, and the reference describes each export', async ({
    assert,
  }) => {
    const report = await read('api/report.md')
    const pkg = JSON.parse(await read('package.json'))
    assert.deepEqual([...namesBySubpath(report).keys()], Object.keys(pkg.exports).map(specifier))
    assert.deepEqual(documentationGaps(report, await read('docs/reference/exports.md')), [])
  })
})
