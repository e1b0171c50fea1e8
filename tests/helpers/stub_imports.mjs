/*
 * Module hooks for the page suite: the inbox pages' shared files
 * (stubs/inertia/agent_inbox/) import one another without an extension, as
 * an app's Vite and TypeScript setup takes them (`./words`), so Node can
 * load them only with this: an extensionless relative import from a stub
 * that Node finds nothing for is tried again as `.ts`. Registered on
 * import, in the loading thread (as bin/ts_hooks.mjs's are); plain
 * JavaScript, like them.
 */

import { registerHooks } from 'node:module'

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context)
    } catch (error) {
      const fromStub = context.parentURL?.includes('/stubs/inertia/') ?? false
      const bare = /^\.\.?\//.test(specifier) && !/\.[a-z]+$/i.test(specifier)
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !fromStub || !bare) throw error
      return next(`${specifier}.ts`, context)
    }
  },
})
