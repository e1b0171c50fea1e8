/*
 * `@opentelemetry/api` is an optional peer: an app without it installed
 * loads the package, and its spans and recorders are plain calls of their
 * work. A child process whose module resolution refuses the API, as a
 * missing package does, imports the package's entry points and runs a
 * span and the metrics' start.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const CHILD = `
import { registerHooks } from 'node:module'
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
      throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' })
    }
    return next(specifier, context)
  },
})
const { otel } = await import('./src/telemetry/otel_api.ts')
await import('./index.ts')
const { inSpan } = await import('./src/telemetry/tracing.ts')
const { startMetrics } = await import('./src/telemetry/metrics.ts')
const worked = await inSpan('agent_inbox.test', {}, async (span) => (span.isRecording() ? 'recording' : 'ran'))
const stop = await startMetrics()
stop()
console.log(JSON.stringify({ api: otel === undefined ? 'absent' : 'present', worked }))
`

async function runChild(source: string) {
  const child = spawn(process.execPath, [TS_HOOKS, '--input-type=module', '-e', source], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => (out += chunk))
  child.stderr.on('data', (chunk) => (out += chunk))
  const [code] = await once(child, 'close')
  return { code, out }
}

test.group('Telemetry without @opentelemetry/api', () => {
  test('the package loads, a span runs its work, and the metrics start as a no-op', async ({
    assert,
  }) => {
    const { code, out } = await runChild(CHILD)
    assert.equal(code, 0, out)
    assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), { api: 'absent', worked: 'ran' })
  })

  test('the hook is what hides it: without the hook the API is there', async ({ assert }) => {
    const { code, out } = await runChild(
      `const { otel } = await import('./src/telemetry/otel_api.ts'); console.log(otel ? 'present' : 'absent')`
    )
    assert.equal(code, 0, out)
    assert.equal(out.trim().split('\n').at(-1), 'present')
  })
})
