/*
 * A typed field: the HTML input that fits the question's type (number,
 * date, datetime-local, email, url or text) with its bounds and pattern, so
 * the browser helps before the server checks. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { ChangeEvent } from 'react'
import type { Question } from 'adonis-agent-inbox/types'
import { patternProblem } from 'adonis-agent-inbox/questions/client'
import { stopEnter } from './keyboard'
import { freeTextType, toDateInput, toDatetimeLocal } from './form_state'

/**
 * The pattern to hand the browser's `<input pattern>`, which runs it with a
 * backtracking engine on every keystroke: only one the package's own rule
 * accepts (docs/design.md §3.6), so a pattern stored before that rule
 * cannot freeze the tab. The server checks the value either way.
 */
function browserPattern(question: Question): string | undefined {
  const pattern = question.input?.pattern
  return pattern !== undefined && patternProblem(pattern) === null ? pattern : undefined
}

type TypedInputProps = {
  id: string
  question: Question
  value: string
  /** An accessible name, when no <label> points at the input */
  label?: string
  placeholder?: string
  describedBy?: string
  invalid?: true
  disabled: boolean
  onChange: (value: string) => void
}

/**
 * The input of one typed value, or of their own words on an option question.
 */
export function TypedInput(props: TypedInputProps) {
  const { id, question, value, label, describedBy, invalid, disabled, onChange } = props
  const input = question.input
  const type = freeTextType(question)
  const min = input?.min
  const max = input?.max
  const shared = {
    'id': id,
    'className': 'ai-input',
    'aria-label': label,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
    'aria-required': input?.required || undefined,
    disabled,
    'onKeyDown': stopEnter,
    'onChange': (event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value),
  }

  switch (type) {
    case 'number':
    case 'integer':
      return (
        <input
          {...shared}
          type="number"
          inputMode={type === 'integer' ? 'numeric' : 'decimal'}
          step={type === 'integer' ? 1 : 'any'}
          min={typeof min === 'number' ? min : undefined}
          max={typeof max === 'number' ? max : undefined}
          placeholder={props.placeholder ?? input?.placeholder}
          value={value}
        />
      )
    case 'date':
    case 'datetime': {
      /* The input writes a date as YYYY-MM-DD, a date and time as YYYY-MM-DDTHH:mm */
      const written = type === 'date' ? toDateInput : toDatetimeLocal
      const bound = (edge: unknown) =>
        typeof edge === 'string' ? written(edge) || undefined : undefined
      return (
        <input
          {...shared}
          type={type === 'date' ? 'date' : 'datetime-local'}
          min={bound(min)}
          max={bound(max)}
          value={written(value)}
        />
      )
    }
    default:
      return (
        <input
          {...shared}
          type={type === 'email' ? 'email' : type === 'url' ? 'url' : 'text'}
          inputMode={type === 'email' ? 'email' : type === 'url' ? 'url' : undefined}
          placeholder={props.placeholder ?? input?.placeholder}
          pattern={type === 'text' ? browserPattern(question) : undefined}
          minLength={typeof min === 'number' ? min : undefined}
          maxLength={typeof max === 'number' ? max : undefined}
          autoComplete="off"
          value={value}
        />
      )
  }
}
