/*
 * An approval card: the tool and the args the run will use, and three
 * ways to answer: Approve, Reject (with an optional reason the agent
 * reads) and Edit (approve changed args, written as JSON). While a panel
 * is open the page pauses its live updates. The app receives this file in
 * inertia/agent_inbox/.
 */

import { useEffect, useId, useRef, useState } from 'react'
import { type CardProps, CardMeta, ErrorList } from './card_parts'
import { decisionErrors } from './feedback'
import { approveReply, argsText, editReply, rejectReply } from './form_state'

type Panel = 'none' | 'reject' | 'edit'

/**
 * An approval's card. Focus follows its panels: into the field when one
 * opens, back to its button when it closes.
 */
export function ApprovalCard({
  card,
  errors,
  busy,
  locked,
  onReply,
  onPanel,
}: CardProps & { onPanel: (open: boolean) => void }) {
  const titleId = useId()
  const base = useId()
  const args = card.action?.args
  const [panel, setPanel] = useState<Panel>('none')
  const [reason, setReason] = useState('')
  const [edited, setEdited] = useState(() => argsText(args))
  const [jsonError, setJsonError] = useState<string | null>(null)
  const split = decisionErrors(errors)
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const editRef = useRef<HTMLTextAreaElement>(null)
  const returnFocus = useRef<Panel>('none')
  const rejectButton = useRef<HTMLButtonElement>(null)
  const editButton = useRef<HTMLButtonElement>(null)

  /* Server errors about the args open the editor again, so they show beside it */
  const serverEditErrors = split.editedInput.length
  useEffect(() => {
    if (serverEditErrors > 0) setPanel('edit')
  }, [serverEditErrors])

  /* The page pauses live updates while a panel is open */
  const panelChanged = useRef(onPanel)
  useEffect(() => {
    panelChanged.current = onPanel
  })
  useEffect(() => () => panelChanged.current(false), [])

  /* Focus follows the panel: into its field when it opens, back to its button when it closes */
  useEffect(() => {
    panelChanged.current(panel !== 'none')
    if (panel === 'reject') reasonRef.current?.focus()
    if (panel === 'edit') editRef.current?.focus()
    if (panel === 'none') {
      if (returnFocus.current === 'reject') rejectButton.current?.focus()
      if (returnFocus.current === 'edit') editButton.current?.focus()
      returnFocus.current = 'none'
    }
  }, [panel])

  const close = () => {
    returnFocus.current = panel
    setPanel('none')
  }
  const sendEdit = () => {
    const result = editReply(edited)
    if ('error' in result) {
      setJsonError(result.error)
      editRef.current?.focus()
      return
    }
    setJsonError(null)
    onReply(result.reply)
  }

  const restId = `${base}-errors`
  const reasonErrorId = `${base}-reason-error`
  const editErrorId = `${base}-edit-error`
  const editMessages = [...(jsonError ? [jsonError] : []), ...split.editedInput]
  const rest = [...split.rest, ...(panel === 'reject' ? [] : split.reason)]

  return (
    <section
      className="ai-card"
      aria-labelledby={titleId}
      aria-busy={busy}
      data-row-id={card.id}
      data-kind={card.kind}
      data-status="pending"
    >
      <h3 id={titleId}>
        Approve <code className="ai-tool">{card.toolName}</code>?
      </h3>
      <CardMeta card={card} />
      {card.action?.summary && card.action.summary !== card.toolName && (
        <p className="ai-summary">{card.action.summary}</p>
      )}
      <div className="ai-args">
        <p className="ai-args-label ai-muted" id={`${base}-args`}>
          Arguments
        </p>
        <pre aria-labelledby={`${base}-args`}>{argsText(args)}</pre>
      </div>
      <ErrorList id={restId} messages={rest} />

      {panel === 'none' && (
        <div className="ai-actions">
          <button
            type="button"
            className="ai-button ai-primary"
            disabled={busy || locked}
            onClick={() => onReply(approveReply())}
          >
            Approve
          </button>
          <button
            type="button"
            className="ai-button ai-danger"
            ref={rejectButton}
            disabled={busy || locked}
            onClick={() => setPanel('reject')}
          >
            Reject
          </button>
          <button
            type="button"
            className="ai-button"
            ref={editButton}
            disabled={busy || locked}
            onClick={() => {
              setJsonError(null)
              setPanel('edit')
            }}
          >
            Edit
          </button>
          {busy && <span className="ai-muted ai-hint">Sending…</span>}
        </div>
      )}

      {panel === 'reject' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${base}-reason`} className="ai-prompt">
            Why not? <span className="ai-muted">(the agent reads this; optional)</span>
          </label>
          <textarea
            id={`${base}-reason`}
            ref={reasonRef}
            className="ai-input"
            rows={3}
            value={reason}
            disabled={busy}
            aria-invalid={split.reason.length > 0 || undefined}
            aria-describedby={split.reason.length > 0 ? reasonErrorId : undefined}
            onChange={(event) => setReason(event.target.value)}
          />
          <ErrorList id={reasonErrorId} messages={split.reason} />
          <div className="ai-actions">
            <button
              type="button"
              className="ai-button ai-danger"
              disabled={busy || locked}
              onClick={() => onReply(rejectReply(reason))}
            >
              Send rejection
            </button>
            <button type="button" className="ai-button" disabled={busy || locked} onClick={close}>
              Cancel
            </button>
            {busy && <span className="ai-muted ai-hint">Sending…</span>}
          </div>
        </form>
      )}

      {panel === 'edit' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${base}-edit`} className="ai-prompt">
            Arguments (JSON)
          </label>
          <textarea
            id={`${base}-edit`}
            ref={editRef}
            className="ai-input ai-mono"
            rows={Math.min(16, Math.max(4, edited.split('\n').length + 1))}
            spellCheck={false}
            value={edited}
            disabled={busy}
            aria-invalid={editMessages.length > 0 || undefined}
            aria-describedby={editMessages.length > 0 ? editErrorId : undefined}
            onChange={(event) => {
              setEdited(event.target.value)
              setJsonError(null)
            }}
          />
          <ErrorList id={editErrorId} messages={editMessages} />
          <div className="ai-actions">
            <button
              type="button"
              className="ai-button ai-primary"
              disabled={busy || locked}
              onClick={sendEdit}
            >
              Approve with changes
            </button>
            <button type="button" className="ai-button" disabled={busy || locked} onClick={close}>
              Cancel
            </button>
            {busy && <span className="ai-muted ai-hint">Sending…</span>}
          </div>
        </form>
      )}
    </section>
  )
}
