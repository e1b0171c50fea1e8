import { configPkg, RULES_LIST } from '@adonisjs/eslint-config'
export default configPkg(
  {
    ignores: ['build/**', 'coverage/**', 'tmp/**'],
  },
  {
    // The inbox page the app receives: the package's own rules for its TSX too
    name: 'Inertia page stub',
    files: ['stubs/inertia/**/*.tsx'],
    rules: RULES_LIST,
  }
)
