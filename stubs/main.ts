/*
 * Where the package's stubs live, for codemods.makeUsingStub.
 */

export const stubsRoot = import.meta.dirname
