/*
 * Module hooks for the page suite: the inbox pages' shared files
 * (stubs/inertia/agent_inbox/) import one another without an extension, as
 * an app's Vite and TypeScript setup takes them (`./words`), so Node can
 * load them only with this: an extensionless relative import from a stub
 * that Node finds nothing for is tried again as `.ts`. Plain JavaScript,
 * since it runs in the hooks thread before anything compiles TypeScript.
 */

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (error) {
    const fromStub = context.parentURL?.includes('/stubs/inertia/') ?? false
    const bare = /^\.\.?\//.test(specifier) && !/\.[a-z]+$/i.test(specifier)
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !fromStub || !bare) throw error
    return next(`${specifier}.ts`, context)
  }
}
