/*
 * A chart of the console in React: uPlot mounted on a div once the figure
 * is in the page (./uplot_chart.ts), given new numbers when the props
 * change, destroyed on unmount; beside it the same numbers as a visually
 * hidden table, which is what a screen reader reads (the canvas is hidden
 * from it). The app receives this file in inertia/agent_console/.
 */

import { useEffect, useRef } from 'react'
import type { ChartSpec } from './chart_data'
import { mountChart, type MountedChart } from './uplot_chart'
import { t } from '../agent_inbox/words'

export function ChartFigure({ spec }: { spec: ChartSpec }) {
  const element = useRef<HTMLDivElement>(null)
  const chart = useRef<MountedChart | null>(null)

  useEffect(() => {
    if (!element.current || spec.empty) return
    if (chart.current) chart.current.update(spec)
    else chart.current = mountChart(element.current, spec)
  }, [spec])

  useEffect(
    () => () => {
      chart.current?.destroy()
      chart.current = null
    },
    []
  )

  const captionId = `ac-chart-${spec.id}`
  return (
    <figure className="ac-chart" data-chart={spec.id} aria-labelledby={captionId}>
      <figcaption id={captionId}>{spec.title}</figcaption>
      {spec.empty ? (
        <p className="ai-muted">{t('page.console.nothing_to_show')}</p>
      ) : (
        <div ref={element} className="ac-plot" aria-hidden="true" />
      )}
      {/* Hidden in a block: a table is as wide as its cells, whatever width it is given */}
      <div className="ai-visually-hidden">
        <table>
          <caption>{spec.table.caption}</caption>
          <thead>
            <tr>
              {spec.table.columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {spec.table.rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, column) =>
                  column === 0 ? (
                    <th key={column} scope="row">
                      {cell}
                    </th>
                  ) : (
                    <td key={column}>{cell}</td>
                  )
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
