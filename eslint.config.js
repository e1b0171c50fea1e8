import { configPkg, RULES_LIST } from '@adonisjs/eslint-config'
export default configPkg(
  {
    ignores: [
      'build/**',
      'coverage/**',
      'tmp/**',
      'artifacts/**',
      // What fixtures/app/bin/build.ts and the fixture app generate
      'fixtures/app/public/**',
      'fixtures/app/.adonisjs/**',
      'fixtures/app/inertia/pages/agent_inbox/**',
      'fixtures/app/inertia/agent_inbox/**',
      'fixtures/app/inertia_vue/pages/agent_inbox/**',
      'fixtures/app/inertia_vue/agent_inbox/**',
      'fixtures/app/inertia/pages/agent_console/**',
      'fixtures/app/inertia/agent_console/**',
      'fixtures/app/inertia_vue/pages/agent_console/**',
      'fixtures/app/inertia_vue/agent_console/**',
      'fixtures/app/database/migrations/0002_*.ts',
    ],
  },
  {
    // The inbox pages the app receives: the package's own rules for their TSX too
    name: 'Inertia page stub',
    files: ['stubs/inertia/**/*.tsx'],
    rules: RULES_LIST,
  }
)
