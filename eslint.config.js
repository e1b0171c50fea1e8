import { configPkg } from '@adonisjs/eslint-config'
export default configPkg({
  ignores: ['build/**', 'coverage/**', 'tmp/**'],
})
