/*
 * `npm test` on a machine without Chromium, as a process: it skips what
 * needs Chromium with one line saying what and how to install it, and
 * exits 0 on what ran; with CI=true it exits 1 naming Chromium. The
 * machine is made to lack Chromium by pointing CHROMIUM_PATH at nothing,
 * and the run is filtered to one small pure file so it stays quick; it
 * writes its report to a folder of its own, not the enclosing run's.
 */

import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { INSTALL } from './tools.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

function npmTest(ci: boolean) {
  const reportDir = `tmp/plan-test-${process.pid}`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEST_REPORT_DIR: reportDir,
    CHROMIUM_PATH: '/nonexistent/chromium',
    CI: ci ? 'true' : '',
  }
  // Not this run's database, plan or coverage: the child plans a run of its own
  for (const name of ['DB', 'NODE_V8_COVERAGE', 'TEST_TIMINGS', 'TEST_PLANNED', 'TEST_DATABASES']) {
    delete env[name]
  }
  const child = spawn(
    process.execPath,
    [...process.execArgv, 'bin/test.ts', '--files', 'tests/questions/budget.spec.ts'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('close', async (code) => {
      await rm(new URL(reportDir, `file://${ROOT}`), { recursive: true, force: true })
      resolve({ code, output })
    })
  })
}

test.group('npm test without Chromium', () => {
  test('skips what needs it in one line with the install command, and exits 0', async ({
    assert,
  }) => {
    const { code, output } = await npmTest(false)
    assert.equal(code, 0, output)
    assert.include(output, '5 passed')
    // One line for Chromium (a machine without Redis or a database server has a line for each)
    const skips = output
      .split('\n')
      .filter((line) => line.startsWith('Skipped ') && line.includes('Chromium'))
    assert.lengthOf(skips, 1, output)
    assert.include(skips[0], 'tests/browser/**/*.spec.ts')
    assert.include(skips[0], 'tests/configure/packed_app.spec.ts')
    assert.include(skips[0], 'no Chromium (/nonexistent/chromium)')
    assert.include(skips[0], INSTALL.chromium)
  }).timeout(60_000)

  test('with CI=true, fails naming Chromium', async ({ assert }) => {
    const { code, output } = await npmTest(true)
    assert.equal(code, 1, output)
    assert.include(output, 'Chromium (/nonexistent/chromium) is missing')
    assert.include(output, INSTALL.chromium)
    assert.notInclude(output, 'passed')
  }).timeout(60_000)
})
