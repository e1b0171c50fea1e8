/*
 * What the package asks of the tables' schema (src/persistence/schema_features.ts)
 * is kept once answered, never when the read failed: a passing error (the
 * database away for a moment) must not leave a guess in place that makes
 * every later write name columns the tables do not have. The database
 * goes away through a proxy (PostgreSQL, MySQL).
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { FaultProxy } from '../helpers/fault_proxy.ts'
import { hasDefinitionDigests } from '../../src/persistence/schema_features.ts'

test.group(`Persistence | schema features | ${dbName()}`, () => {
  test('a failed schema read is asked again, not cached as a guess', async ({ assert }) => {
    const proxy = new FaultProxy({ host: '127.0.0.1', port: dbName() === 'pg' ? 5432 : 3306 })
    const testApp = await createTestApp({ dbPort: await proxy.start() })
    try {
      // Tables as a deploy ahead of its migrations finds them: no fingerprint column
      await testApp.db.rawQuery('alter table agent_tool_calls drop column definition_digest')

      // The database away for a moment: the answer is a guess
      const away = proxy.down(500)
      assert.isTrue(await hasDefinitionDigests(), 'assumed while the schema cannot be read')
      await away

      assert.isFalse(await hasDefinitionDigests(), 'asked again once the database answers')
      assert.isFalse(await hasDefinitionDigests(), 'and the answer is kept')
    } finally {
      await testApp.terminate()
      await proxy.stop()
    }
  }).skip(dbName() === 'sqlite', 'SQLite is a file of this process: it does not go away')
})
