/*
 * Reads the package's public surface with the TypeScript compiler: for
 * each subpath of package.json's `exports`, the symbols its source entry
 * exports and their declared signatures, as one text per symbol. What
 * the report makes of them (and the comparison with the checked-in one)
 * is ./report.ts's; this file is the only one here that compiles.
 */

import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import ts from 'typescript'
import type { ApiExport, ApiSubpath } from './report.ts'

/** The condition package.json's `exports` names each entry's source by */
const SOURCE_CONDITION = 'adonis-agent-inbox-source'

/** Subpaths with no stability promise: listed by name and kind, not signature */
const UNSTABLE = new Set(['./internals'])

const TYPE_FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType

/**
 * The subpaths of the package at `root` and their source entries, in
 * package.json's order.
 */
export async function packageEntries(root: string): Promise<Array<[string, string]>> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))
  return Object.entries<Record<string, string>>(pkg.exports ?? {}).map(([subpath, target]) => {
    const source = target[SOURCE_CONDITION]
    if (!source) throw new Error(`package.json: exports["${subpath}"] names no ${SOURCE_CONDITION}`)
    return [subpath, join(root, source)]
  })
}

/**
 * Every subpath's exports, compiled with the package's own tsconfig.json.
 */
export async function extractApi(root: string): Promise<ApiSubpath[]> {
  const entries = await packageEntries(root)
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    }
  )
  if (!config) throw new Error(`${root}/tsconfig.json could not be read`)
  const program = ts.createProgram({
    rootNames: entries.map(([, file]) => file),
    options: { ...config.options, noEmit: true },
  })
  const checker = program.getTypeChecker()
  const render = new Renderer(checker, root)

  return entries.map(([subpath, file]) => {
    const source = program.getSourceFile(file)
    const module = source && checker.getSymbolAtLocation(source)
    if (!module) throw new Error(`${relative(root, file)} (exports["${subpath}"]) is not a module`)
    const stable = !UNSTABLE.has(subpath)
    const exports = checker
      .getExportsOfModule(module)
      .map((symbol) => render.export(symbol, stable))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { subpath, stable, exports }
  })
}

/**
 * Turns exported symbols into declaration-like lines: functions and
 * methods by their signatures (return types inferred where the source
 * leaves them out), classes by their public members, types as written.
 */
class Renderer {
  #printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed })

  constructor(
    private checker: ts.TypeChecker,
    private root: string
  ) {}

  export(exported: ts.Symbol, stable: boolean): ApiExport {
    const name = exported.getName()
    const symbol = this.#resolve(exported)
    const kinds = this.#kinds(symbol)
    if (!stable) return { name, kind: kinds.join(' & '), lines: [] }
    const lines = this.#declarations(symbol, name, '')
    return { name, kind: kinds.join(' & '), lines }
  }

  #resolve(symbol: ts.Symbol) {
    return symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol
  }

  #kinds(symbol: ts.Symbol): string[] {
    const kinds = new Set<string>()
    for (const declaration of symbol.declarations ?? []) kinds.add(kindOf(declaration))
    return [...kinds]
  }

  #declarations(symbol: ts.Symbol, name: string, indent: string): string[] {
    const lines: string[] = []
    const declared = declaredName(symbol)
    const label = declared && declared !== name ? `${declared} as ${name}` : name
    const declarations = symbol.declarations ?? []
    // Overloads share one symbol: their signatures are printed once
    const seen = new Set<string>()
    for (const declaration of declarations) {
      const kind = kindOf(declaration)
      if (seen.has(kind)) continue
      seen.add(kind)
      lines.push(...this.#declaration(symbol, declaration, kind, label, indent))
    }
    return lines
  }

  #declaration(
    symbol: ts.Symbol,
    declaration: ts.Declaration,
    kind: string,
    label: string,
    indent: string
  ): string[] {
    const checker = this.checker
    switch (kind) {
      case 'namespace': {
        const members = checker
          .getExportsOfModule(symbol)
          .sort((a, b) => (a.getName() < b.getName() ? -1 : 1))
          .flatMap((member) =>
            this.#declarations(this.#resolve(member), member.getName(), indent + '  ')
          )
        return [`${indent}namespace ${label} {`, ...members, `${indent}}`]
      }
      case 'function': {
        const type = checker.getTypeOfSymbol(symbol)
        return type
          .getCallSignatures()
          .map((signature) => `${indent}function ${label}${this.#signature(signature)}`)
      }
      case 'class':
        return this.#class(symbol, declaration as ts.ClassDeclaration, label, indent)
      case 'const':
      case 'let': {
        const type = checker.getTypeOfSymbol(symbol)
        const head = `${indent}${kind} ${label}: `
        const expanded = this.#objectMembers(type, indent)
        if (expanded) return [`${head}{`, ...expanded, `${indent}}`]
        // A class expression (`export const E_X = class extends …`): its members, as a class's
        const expression = type.getSymbol()?.valueDeclaration
        if (expression && ts.isClassExpression(expression)) {
          return this.#class(type.getSymbol()!, expression, `${kind} ${label} = class`, indent, '')
        }
        const lines = [head + this.#type(type)]
        // An instance of the package's own class (the services): its members are the surface
        const owned = this.#ownClass(type)
        if (owned) lines.push(...this.#class(owned.symbol, owned.declaration, owned.name, indent))
        return lines
      }
      default: {
        // Interfaces, type aliases, enums: as declared, without comments or `export`
        const text = this.#printer
          .printNode(ts.EmitHint.Unspecified, declaration, declaration.getSourceFile())
          .replace(/^(export\s+)?(declare\s+)?(default\s+)?/, '')
        const alias = label.split(' as ')[1]
        const named = alias ? `${text} // exported as ${alias}` : text
        return named.split('\n').map((line) => indent + line)
      }
    }
  }

  /** An object type's members line by line; null for anything else (functions, primitives, named types) */
  #objectMembers(type: ts.Type, indent: string): string[] | null {
    const anonymous =
      type.flags & ts.TypeFlags.Object &&
      (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Anonymous &&
      !type.getCallSignatures().length &&
      !type.getConstructSignatures().length
    if (!anonymous || !type.symbol || type.symbol.flags & ts.SymbolFlags.Class) return null
    return type.getProperties().flatMap((property) => this.#member(property, indent + '  ', ''))
  }

  /** The package's class a value is an instance of, if any */
  #ownClass(type: ts.Type) {
    const symbol = type.getSymbol()
    const declaration = symbol?.declarations?.find(ts.isClassDeclaration)
    if (!symbol || !declaration) return null
    if (declaration.getSourceFile().fileName.includes('/node_modules/')) return null
    return { symbol, declaration, name: symbol.getName() }
  }

  #class(
    symbol: ts.Symbol,
    declaration: ts.ClassLikeDeclaration,
    label: string,
    indent: string,
    keyword = 'class '
  ) {
    const source = declaration.getSourceFile()
    const parameters = declaration.typeParameters
      ? `<${declaration.typeParameters.map((parameter) => parameter.getText(source)).join(', ')}>`
      : ''
    const heritage = (declaration.heritageClauses ?? [])
      .map((clause) => ' ' + clause.getText(source).replace(/\s+/g, ' '))
      .join('')
    const abstract = ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Abstract
    const lines = [
      `${indent}${abstract ? 'abstract ' : ''}${keyword}${label}${parameters}${heritage} {`,
    ]
    const inner = indent + '  '
    const staticType = this.checker.getTypeOfSymbol(symbol)
    for (const signature of staticType.getConstructSignatures()) {
      if (signature.declaration && isHidden(signature.declaration)) continue
      const params = this.#parameters(signature)
      if (signature.declaration || params) lines.push(`${inner}constructor(${params})`)
    }
    for (const member of declaration.members) {
      if (ts.isConstructorDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) continue
      if (isHidden(member) || !member.name) continue
      const memberSymbol = this.checker.getSymbolAtLocation(member.name)
      if (!memberSymbol) continue
      const modifiers = ts.getCombinedModifierFlags(member)
      const prefix =
        (modifiers & ts.ModifierFlags.Protected ? 'protected ' : '') +
        (modifiers & ts.ModifierFlags.Static ? 'static ' : '') +
        (modifiers & ts.ModifierFlags.Readonly ? 'readonly ' : '')
      const line = this.#member(memberSymbol, inner, prefix, member)
      // A getter and its setter are one member
      for (const text of line) if (!lines.includes(text)) lines.push(text)
    }
    lines.push(`${indent}}`)
    return lines
  }

  #member(symbol: ts.Symbol, indent: string, prefix: string, at?: ts.Node): string[] {
    const declaration = at ?? symbol.valueDeclaration ?? symbol.declarations?.[0]
    const type = declaration
      ? this.checker.getTypeOfSymbolAtLocation(symbol, declaration)
      : this.checker.getTypeOfSymbol(symbol)
    const name = symbol.getName()
    const method =
      declaration && (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration))
    if (method) {
      const optional = symbol.flags & ts.SymbolFlags.Optional ? '?' : ''
      return type
        .getCallSignatures()
        .map((signature) => `${indent}${prefix}${name}${optional}${this.#signature(signature)}`)
    }
    if (declaration && ts.isGetAccessorDeclaration(declaration)) {
      return [`${indent}${prefix}get ${name}(): ${this.#type(type)}`]
    }
    if (declaration && ts.isSetAccessorDeclaration(declaration)) {
      const getter = symbol.declarations?.some(ts.isGetAccessorDeclaration)
      return getter ? [] : [`${indent}${prefix}set ${name}(value: ${this.#type(type)})`]
    }
    const optional = symbol.flags & ts.SymbolFlags.Optional ? '?' : ''
    return [`${indent}${prefix}${name}${optional}: ${this.#type(type)}`]
  }

  #signature(signature: ts.Signature): string {
    const declaration = signature.getDeclaration() as ts.SignatureDeclaration | undefined
    const source = declaration?.getSourceFile()
    const typeParameters = declaration?.typeParameters
      ? `<${declaration.typeParameters.map((parameter) => parameter.getText(source).replace(/\s+/g, ' ')).join(', ')}>`
      : ''
    const returns = this.#type(signature.getReturnType())
    return `${typeParameters}(${this.#parameters(signature)}): ${returns}`
  }

  #parameters(signature: ts.Signature): string {
    return signature
      .getParameters()
      .map((parameter) => {
        const declaration = parameter.valueDeclaration as ts.ParameterDeclaration | undefined
        const rest = declaration?.dotDotDotToken ? '...' : ''
        const optional =
          declaration && (declaration.questionToken || declaration.initializer) ? '?' : ''
        const type = declaration
          ? this.checker.getTypeOfSymbolAtLocation(parameter, declaration)
          : this.checker.getTypeOfSymbol(parameter)
        // An optional parameter's type as written, without the `| undefined` it implies
        const shown = optional ? this.checker.getNonNullableType(type) : type
        // A destructured parameter by its pattern, not the compiler's `__0`
        const name =
          declaration && !ts.isIdentifier(declaration.name)
            ? declaration.name.getText().replace(/\s+/g, ' ')
            : parameter.getName()
        return `${rest}${name}${optional}: ${this.#type(shown)}`
      })
      .join(', ')
  }

  #type(type: ts.Type): string {
    const text = this.checker.typeToString(type, undefined, TYPE_FLAGS)
    // Types the compiler can name only by their file: the file from the package's root
    return text.replace(/import\("([^"]+)"\)/g, (_, path: string) => {
      const inside = path.includes('/node_modules/')
        ? path.slice(path.lastIndexOf('/node_modules/') + '/node_modules/'.length)
        : relative(this.root, path)
      return `import("${inside}")`
    })
  }
}

/**
 * The name a symbol is declared with, when it has one of its own: not a
 * module's (a file path) nor a default export's (`default`).
 */
function declaredName(symbol: ts.Symbol): string | null {
  const declaration = symbol.declarations?.[0]
  if (!declaration || ts.isSourceFile(declaration)) return null
  const name = (declaration as ts.NamedDeclaration).name
  return name && ts.isIdentifier(name) ? name.text : null
}

function kindOf(declaration: ts.Declaration): string {
  if (ts.isFunctionDeclaration(declaration)) return 'function'
  if (ts.isClassDeclaration(declaration)) return 'class'
  if (ts.isInterfaceDeclaration(declaration)) return 'interface'
  if (ts.isTypeAliasDeclaration(declaration)) return 'type'
  if (ts.isEnumDeclaration(declaration)) return 'enum'
  if (ts.isSourceFile(declaration) || ts.isModuleDeclaration(declaration)) return 'namespace'
  if (ts.isVariableDeclaration(declaration)) {
    return declaration.parent.flags & ts.NodeFlags.Const ? 'const' : 'let'
  }
  return ts.SyntaxKind[declaration.kind]
}

/** Private members (`#x` or `private`) are not part of the surface */
function isHidden(node: ts.Node) {
  const named = node as ts.NamedDeclaration
  if (named.name && ts.isPrivateIdentifier(named.name)) return true
  return Boolean(ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Private)
}
