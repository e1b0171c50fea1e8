/*
 * One field of the form that edits an approval's args, generated from the
 * JSON Schema of the tool's input (schema_form.ts, shared with the Vue
 * page): text, a number, a checkbox, a select for an enum, JSON for what
 * the schema cannot describe, or a group (the args themselves, an object's
 * properties, an array's items with Add and Remove) of fields like itself,
 * each with the server's errors beside it. It reads its value at its path
 * in the whole args and writes the whole back. The app receives this file
 * in inertia/agent_inbox/.
 */

import { useId, useState } from 'react'
import { ErrorList } from './card_parts'
import { stopEnter } from './keyboard'
import {
  emptyValue,
  inputText,
  pathKey,
  removeAt,
  setAt,
  valueAt,
  valueFromInput,
  type FieldPath,
  type SchemaField,
} from './schema_form'
import { t } from './words'

type InputProps = {
  field: SchemaField
  path: FieldPath
  /** The whole args: each input reads its value at its path and writes the whole back */
  root: unknown
  errors: Record<string, string[]>
  disabled: boolean
  onChange: (value: unknown) => void
  /** A label of its own (an array's item: "Tags 2") */
  label?: string
}

/**
 * A field of the args form, or a group of them; the form itself is the
 * group at the path [].
 */
export function SchemaInput(props: InputProps) {
  const { field, path, root, errors, disabled, onChange } = props
  const id = useId()
  const [local, setLocal] = useState<string | null>(null)
  const value = valueAt(root, path)
  const label = props.label ?? field.label
  const messages = [...(local ? [local] : []), ...(errors[pathKey(path)] ?? [])]
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const describedBy =
    [field.description ? hintId : null, messages.length ? errorId : null]
      .filter(Boolean)
      .join(' ') || undefined
  const write = (text: string) => {
    const read = valueFromInput(field, text)
    if ('error' in read) return setLocal(read.error)
    setLocal(null)
    onChange(setAt(root, path, read.value))
  }
  const shared = {
    'id': id,
    'disabled': disabled,
    'aria-invalid': messages.length > 0 || undefined,
    'aria-describedby': describedBy,
    'aria-required': field.required || undefined,
  }
  const hint = field.description && (
    <p id={hintId} className="ai-description ai-muted">
      {field.description}
    </p>
  )
  const required = field.required && <span className="ai-required">{t('page.card.required')}</span>

  if (field.kind === 'object' || field.kind === 'array') {
    const items = Array.isArray(value) ? value : []
    return (
      <fieldset className="ai-fieldset" aria-describedby={describedBy}>
        <legend className="ai-prompt">
          {label}
          {required}
        </legend>
        {hint}
        {field.kind === 'object'
          ? (field.fields ?? []).map((child) => (
              <SchemaInput
                key={child.name}
                {...props}
                label={undefined}
                field={child}
                path={[...path, child.name]}
              />
            ))
          : items.map((_, index) => (
              <div key={index} className="ai-typed-row">
                <SchemaInput
                  {...props}
                  field={field.item!}
                  path={[...path, index]}
                  label={`${label} ${index + 1}`}
                />
                <button
                  type="button"
                  className="ai-link"
                  disabled={disabled}
                  onClick={() => onChange(removeAt(root, [...path, index]))}
                >
                  {t('page.card.remove_item', { label, number: index + 1 })}
                </button>
              </div>
            ))}
        {field.kind === 'array' && (
          <button
            type="button"
            className="ai-link"
            disabled={disabled}
            onClick={() => onChange(setAt(root, path, [...items, emptyValue(field.item!)]))}
          >
            {t('page.card.add_item', { label })}
          </button>
        )}
        <ErrorList id={errorId} messages={messages} />
      </fieldset>
    )
  }

  let control
  if (field.kind === 'boolean') {
    return (
      <div className="ai-field" data-field={pathKey(path)}>
        <label className="ai-option" htmlFor={id}>
          <input
            {...shared}
            type="checkbox"
            checked={value === true}
            onChange={(event) => write(String(event.target.checked))}
          />
          <span className="ai-option-label">{label}</span>
        </label>
        {hint}
        <ErrorList id={errorId} messages={messages} />
      </div>
    )
  } else if (field.kind === 'select') {
    control = (
      <select
        {...shared}
        className="ai-input"
        value={inputText(field, value)}
        onChange={(event) => write(event.target.value)}
      >
        {(!field.required || inputText(field, value) === '') && <option value="">—</option>}
        {(field.options ?? []).map((option, index) => (
          <option key={index} value={String(index)}>
            {option.label}
          </option>
        ))}
      </select>
    )
  } else if (field.kind === 'json') {
    control = (
      <textarea
        {...shared}
        className="ai-input ai-mono"
        rows={3}
        spellCheck={false}
        defaultValue={inputText(field, value)}
        onChange={(event) => write(event.target.value)}
      />
    )
  } else {
    const number = field.kind === 'number' || field.kind === 'integer'
    control = (
      <input
        {...shared}
        className="ai-input"
        type={number ? 'number' : (field.inputType ?? 'text')}
        step={field.kind === 'integer' ? 1 : number ? 'any' : undefined}
        min={field.min}
        max={field.max}
        minLength={field.minLength}
        maxLength={field.maxLength}
        value={inputText(field, value)}
        onKeyDown={stopEnter}
        onChange={(event) => write(event.target.value)}
      />
    )
  }
  return (
    <div className="ai-field" data-field={pathKey(path)}>
      <label className="ai-prompt" htmlFor={id}>
        {label}
        {required}
      </label>
      {hint}
      {control}
      <ErrorList id={errorId} messages={messages} />
    </div>
  )
}
