// tests/helpers/stub_imports.mjs registers its hooks when imported; it exports nothing
export {}
