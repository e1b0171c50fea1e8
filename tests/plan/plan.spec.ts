/*
 * The test plan (./plan.ts) keeps its promises: every spec file of the
 * repository is placed by exactly one part, so no test falls out of CI; a
 * run over the three databases runs each once-only part once and every
 * other part on each; a missing database or tool moves or skips only what
 * it should; a share's two halves hold it all, once; the storms are full
 * on one database; and CONTRIBUTING.md shows the plan as it is.
 */

import { glob, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import {
  DATABASES,
  filesNeeding,
  places,
  planTable,
  shareOf,
  STORMS,
  SUITES,
  unitsOf,
} from './plan.ts'

const ROOT = new URL('../../', import.meta.url)

/** The parts of a share, as `suite:first glob` labels */
const labels = (share: ReturnType<typeof shareOf>) =>
  share.suites.flatMap((suite) => suite.parts.map((part) => `${suite.name}:${part.files[0]}`))

test.group('Test plan', () => {
  test('every spec file of the repository is placed by exactly one part', async ({ assert }) => {
    const files = await Array.fromAsync(glob('tests/**/*.spec.ts', { cwd: fileURLToPath(ROOT) }))
    assert.isAbove(files.length, 80)
    for (const file of files) {
      const placed = SUITES.flatMap((suite) => suite.parts).filter((part) => places(part, file))
      assert.lengthOf(placed, 1, file)
    }
  })

  test('over three databases, a once-only part runs once and the others on each', ({ assert }) => {
    const shares = DATABASES.map((db) => labels(shareOf(db, DATABASES)))
    for (const suite of SUITES) {
      for (const part of suite.parts) {
        const label = `${suite.name}:${part.files[0]}`
        const runsOn = DATABASES.filter((_, at) => shares[at].includes(label))
        assert.deepEqual(runsOn, part.on === 'every' ? [...DATABASES] : [part.on], label)
      }
    }
  })

  test('without its database, a once-only part runs on the first database of the run', ({
    assert,
  }) => {
    const withoutPg = labels(shareOf('sqlite', ['sqlite', 'mysql']))
    assert.include(withoutPg, 'browser:tests/browser/**/*.spec.ts')
    assert.notInclude(
      labels(shareOf('mysql', ['sqlite', 'mysql'])),
      'browser:tests/browser/**/*.spec.ts'
    )
    // Run alone (DB=pg npm test), a database runs every part
    const alone = labels(shareOf('pg', ['pg']))
    assert.lengthOf(alone, SUITES.flatMap((suite) => suite.parts).length)
  })

  test("a share's two halves hold all of it once; the once-only halves start first", ({
    assert,
  }) => {
    for (const db of DATABASES) {
      const every = labels(shareOf(db, DATABASES, [], {}, 'every'))
      const once = labels(shareOf(db, DATABASES, [], {}, 'once'))
      assert.sameMembers([...every, ...once], labels(shareOf(db, DATABASES)), db)
      assert.deepEqual(
        every.filter((label) => once.includes(label)),
        [],
        db
      )
    }
    const name = ({ db, half }: { db: string; half: string }) => `${db} ${half}`
    // The browser pages' half first; MySQL is home to no once-only part
    assert.deepEqual(unitsOf(DATABASES).map(name), [
      'pg once',
      'sqlite once',
      'sqlite every',
      'pg every',
      'mysql every',
    ])
    // Without Chromium the browser pages are skipped: SQLite's once-only half leads
    assert.deepEqual(unitsOf(DATABASES, ['chromium']).slice(0, 2).map(name), [
      'sqlite once',
      'pg once',
    ])
    // Without PostgreSQL its once-only parts move to SQLite's half
    assert.deepEqual(unitsOf(['sqlite', 'mysql']).map(name), [
      'sqlite once',
      'sqlite every',
      'mysql every',
    ])
  })

  test('a missing tool skips the parts that need it, and only those', ({ assert }) => {
    const share = shareOf('pg', DATABASES, ['chromium'])
    assert.notInclude(labels(share), 'browser:tests/browser/**/*.spec.ts')
    assert.deepEqual(share.skipped, [{ files: ['tests/browser/**/*.spec.ts'], tool: 'chromium' }])
    assert.include(labels(share), 'runtime:tests/runtime/queue_cluster.spec.ts')
    assert.sameMembers(filesNeeding('chromium'), [
      'tests/configure/packed_app.spec.ts',
      'tests/browser/**/*.spec.ts',
    ])
  })

  test('the storms are full on their database and shorter elsewhere; a size set by hand wins', ({
    assert,
  }) => {
    for (const storm of STORMS) {
      assert.isBelow(storm.short, storm.full)
      for (const db of DATABASES) {
        const size = shareOf(db, DATABASES).env[storm.env]
        assert.equal(size, String(db === storm.fullOn ? storm.full : storm.short), storm.env)
      }
      // Run alone, or without the storm's home, each suite keeps its own defaults
      const other = DATABASES.find((db) => db !== storm.fullOn)!
      assert.notProperty(shareOf(other, [other]).env, storm.env)
      assert.notProperty(
        shareOf(
          other,
          DATABASES.filter((db) => db !== storm.fullOn)
        ).env,
        storm.env
      )
      assert.notProperty(shareOf(other, DATABASES, [], { [storm.env]: '3' }).env, storm.env)
    }
  })

  test('CONTRIBUTING.md shows the plan as it is', async ({ assert }) => {
    const contributing = await readFile(new URL('CONTRIBUTING.md', ROOT), 'utf8')
    assert.include(contributing, planTable())
  })
})
