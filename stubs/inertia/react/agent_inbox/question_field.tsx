/*
 * One question of a card, with the control its type asks for: options
 * (radios or checkboxes, plus a field for their own words when free text is
 * allowed), Yes/No for a boolean, or typed fields (several on a multiple
 * question). The app receives this file in inertia/agent_inbox/.
 */

import { type ReactNode, useId } from 'react'
import type { Question } from 'adonis-agent-inbox/types'
import { inputTypeOf, isSingleChoice } from 'adonis-agent-inbox/questions/client'
import { ErrorList } from './card_parts'
import {
  type AnswerState,
  chooseOther,
  freeTextType,
  hasOptions,
  pickOption,
  setTypedValue,
  typeOther,
} from './form_state'
import { TypedInput } from './typed_input'
import { t } from './words'

export type FieldProps = {
  rowId: string
  question: Question
  state: AnswerState
  errors: string[]
  disabled: boolean
  onChange: (change: (state: AnswerState) => AnswerState) => void
}

/**
 * One question: its prompt, description and detail (a plan review shows its
 * plan), the control its type asks for, and its errors.
 */
export function QuestionField({ rowId, question, state, errors, disabled, onChange }: FieldProps) {
  const base = useId()
  const promptId = `${base}-prompt`
  const descriptionId = `${base}-description`
  const errorId = `${base}-error`
  const describedBy =
    [question.description ? descriptionId : null, errors.length > 0 ? errorId : null]
      .filter(Boolean)
      .join(' ') || undefined
  const invalid = errors.length > 0 || undefined
  const type = inputTypeOf(question)
  const single = isSingleChoice(question)
  const singleTyped = !hasOptions(question) && type !== 'boolean' && single
  const planReview = question.intent?.kind === 'plan-review'

  let control: ReactNode
  if (hasOptions(question)) {
    control = (
      <OptionList
        name={`${rowId}-${question.id}`}
        base={base}
        question={question}
        state={state}
        describedBy={describedBy}
        invalid={invalid}
        disabled={disabled}
        onChange={onChange}
      />
    )
  } else if (type === 'boolean') {
    control = (
      <div
        className="ai-options ai-inline"
        role="radiogroup"
        aria-labelledby={promptId}
        aria-describedby={describedBy}
        aria-required={question.input?.required || undefined}
      >
        {[
          ['true', t('page.card.yes')],
          ['false', t('page.card.no')],
        ].map(([value, label]) => (
          <label key={value} className="ai-option">
            <input
              type="radio"
              name={`${rowId}-${question.id}`}
              value={value}
              checked={state.values[0] === value}
              disabled={disabled}
              aria-invalid={invalid}
              onChange={() => onChange((current) => ({ ...current, values: [value] }))}
            />
            <span className="ai-option-label">{label}</span>
          </label>
        ))}
      </div>
    )
  } else {
    control = (
      <div className="ai-typed-list">
        {state.values.map((value, index) => (
          <div key={index} className="ai-typed-row">
            <TypedInput
              id={index === 0 ? `${base}-input` : `${base}-input-${index}`}
              question={question}
              value={value}
              label={
                single
                  ? undefined
                  : t('page.card.value_label', { prompt: question.prompt, number: index + 1 })
              }
              describedBy={describedBy}
              invalid={invalid}
              disabled={disabled}
              onChange={(next) => onChange((current) => setTypedValue(current, index, next))}
            />
            {!single && state.values.length > 1 && (
              <button
                type="button"
                className="ai-link"
                disabled={disabled}
                aria-label={t('page.card.remove_value', { number: index + 1 })}
                onClick={() =>
                  onChange((current) => ({
                    ...current,
                    values: current.values.filter((_, at) => at !== index),
                  }))
                }
              >
                {t('page.card.remove')}
              </button>
            )}
          </div>
        ))}
        {!single && (
          <button
            type="button"
            className="ai-link"
            disabled={disabled}
            onClick={() => onChange((current) => ({ ...current, values: [...current.values, ''] }))}
          >
            {t('page.card.add_value')}
          </button>
        )}
      </div>
    )
  }

  return (
    <div
      className="ai-question"
      data-question-id={question.id}
      role={singleTyped ? undefined : 'group'}
      aria-labelledby={singleTyped ? undefined : promptId}
    >
      {question.header && <span className="ai-chip ai-header-chip">{question.header}</span>}
      {singleTyped ? (
        <label id={promptId} className="ai-prompt" htmlFor={`${base}-input`}>
          {question.prompt}
          {question.input?.required && (
            <span className="ai-required">{t('page.card.required')}</span>
          )}
        </label>
      ) : (
        <p id={promptId} className="ai-prompt">
          {question.prompt}
          {question.input?.required && (
            <span className="ai-required">{t('page.card.required')}</span>
          )}
        </p>
      )}
      {question.description && (
        <p id={descriptionId} className="ai-description ai-muted">
          {question.description}
        </p>
      )}
      {question.detail &&
        (planReview ? (
          <blockquote className="ai-plan" aria-label={t('page.card.the_plan')}>
            <pre>{question.detail}</pre>
          </blockquote>
        ) : (
          <details className="ai-detail">
            <summary>{t('page.card.details')}</summary>
            <pre>{question.detail}</pre>
          </details>
        ))}
      {control}
      <ErrorList id={errorId} messages={errors} />
    </div>
  )
}

type OptionListProps = {
  name: string
  base: string
  question: Question
  state: AnswerState
  describedBy?: string
  invalid?: true
  disabled: boolean
  onChange: FieldProps['onChange']
}

function OptionList(props: OptionListProps) {
  const { name, base, question, state, describedBy, invalid, disabled, onChange } = props
  const single = isSingleChoice(question)
  const inputType = single ? 'radio' : 'checkbox'
  const promptId = `${base}-prompt`
  const otherId = `${base}-other`
  /* Their own words are typed like the question's input (an email, a number…) */
  const otherQuestion: Question = {
    ...question,
    input: { ...question.input, type: freeTextType(question) },
  }

  return (
    <div
      className="ai-options"
      role={single ? 'radiogroup' : undefined}
      aria-labelledby={single ? promptId : undefined}
    >
      {question.options!.map((option, index) => {
        const labelId = `${base}-option-${index}`
        const descriptionId = `${labelId}-description`
        return (
          <label key={option.value} className="ai-option">
            <input
              type={inputType}
              name={name}
              value={option.value}
              checked={state.values.includes(option.value)}
              disabled={disabled}
              aria-labelledby={labelId}
              aria-describedby={
                [option.description ? descriptionId : null, describedBy]
                  .filter(Boolean)
                  .join(' ') || undefined
              }
              aria-invalid={invalid}
              aria-keyshortcuts={option.hotkey}
              onChange={() => onChange((current) => pickOption(question, current, option.value))}
            />
            <span className="ai-option-text">
              <span id={labelId} className="ai-option-label">
                {option.label}
              </span>
              {option.description && (
                <span id={descriptionId} className="ai-option-description ai-muted">
                  {option.description}
                </span>
              )}
            </span>
            {option.hotkey && (
              <kbd className="ai-kbd" title={t('page.card.press_key', { key: option.hotkey })}>
                {option.hotkey}
              </kbd>
            )}
          </label>
        )
      })}
      {question.allowFreeText && (
        <div className="ai-option ai-other">
          <input
            type={inputType}
            name={name}
            id={`${otherId}-choice`}
            checked={state.otherChosen}
            disabled={disabled}
            onChange={(event) =>
              onChange((current) => chooseOther(question, current, event.target.checked))
            }
          />
          <label htmlFor={`${otherId}-choice`} className="ai-option-label">
            {t('page.card.other')}
          </label>
          <TypedInput
            id={otherId}
            question={otherQuestion}
            value={state.other}
            label={t('page.card.other_answer')}
            placeholder={question.input?.placeholder ?? t('page.card.own_answer')}
            describedBy={describedBy}
            invalid={invalid}
            disabled={disabled}
            onChange={(text) => onChange((current) => typeOther(question, current, text))}
          />
        </div>
      )}
    </div>
  )
}
