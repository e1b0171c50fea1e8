/*
 * Draws a chart of ./chart_data.ts with uPlot (https://github.com/leeoniya/uPlot:
 * ~50 kB, canvas, no framework), for the React and the Vue page alike:
 * each mounts it on an element when the chart appears, hands it new
 * numbers when the props change, and destroys it when it goes. It follows
 * its element's width. The canvas is hidden from assistive technology;
 * the page renders the chart's table beside it (ChartSpec.table). The app
 * receives this file in inertia/agent_console/.
 */

import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { ChartSpec } from './chart_data'
import { t } from '../agent_inbox/words'

const HEIGHT = 220

/**
 * uPlot's options for a chart: its axes, and lines or bars per series.
 * Labels and legend values are read through `now`, so new numbers of the
 * same shape need no new plot.
 */
function optionsOf(now: () => ChartSpec, width: number, ink: string): uPlot.Options {
  const spec = now()
  // Axes in the page's text colour (light or dark theme), grid lines faint
  const lines = { stroke: 'rgb(128 128 128 / 25%)', width: 1 }
  const axis = { stroke: ink, grid: lines, ticks: lines }
  const bars = spec.style === 'bars' ? uPlot.paths.bars!({ size: [0.6, 64] }) : undefined
  const category = spec.axis === 'category'
  return {
    width,
    height: HEIGHT,
    // Bars of one category sit at one x; the cursor names the category, not a time
    cursor: { drag: { x: false, y: false }, points: { show: !bars } },
    scales: {
      x: category
        ? { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }
        : { time: true },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
    },
    axes: [
      category
        ? {
            ...axis,
            splits: () => now().x,
            values: (_u, splits) => splits.map((index) => now().labels[index] ?? ''),
          }
        : axis,
      { ...axis, label: spec.unit, size: 56 },
    ],
    series: [
      {
        label: t(category ? 'page.console.category' : 'page.console.day'),
        value: (_u, value) =>
          value === null
            ? '—'
            : category
              ? (now().labels[value] ?? '')
              : (now().labels[now().x.indexOf(value)] ?? ''),
      },
      ...spec.series.map((series, position) => ({
        label: series.label,
        stroke: series.color,
        width: bars ? 0 : 2,
        fill: bars ? series.color : undefined,
        paths: bars,
        points: { show: !bars },
        // The legend shows the series' own number (a stacked bar draws a running total)
        value: (_u: uPlot, _value: number | null, _series: number, index: number | null) =>
          index === null ? '—' : (now().series[position]?.values[index] ?? '—'),
      })),
    ],
  }
}

/** What a plot is built for: new numbers of the same shape redraw it */
function shapeOf(spec: ChartSpec): string {
  return JSON.stringify([spec.axis, spec.style, spec.unit, spec.x, spec.series.map((s) => s.label)])
}

/** The numbers uPlot takes: x, then each series */
function dataOf(spec: ChartSpec): uPlot.AlignedData {
  return [spec.x, ...spec.series.map((series) => series.drawn)]
}

export type MountedChart = { update(spec: ChartSpec): void; destroy(): void }

/**
 * Mounts the chart on `element` (emptied first) and keeps it as wide as
 * the element. `update` redraws with new numbers (a new shape of chart
 * is mounted afresh); `destroy` removes it and stops watching the width.
 *
 * @example
 * const chart = mountChart(element, dailyChart(props.charts.daily))
 * // on unmount
 * chart.destroy()
 */
export function mountChart(element: HTMLElement, spec: ChartSpec): MountedChart {
  const widthOf = () => Math.max(240, Math.floor(element.clientWidth))
  let current = spec
  const now = () => current
  const ink = getComputedStyle(element).color
  let plot = new uPlot(optionsOf(now, widthOf(), ink), dataOf(spec), element)
  const resized = new ResizeObserver(() => {
    if (Math.abs(plot.width - widthOf()) > 1) plot.setSize({ width: widthOf(), height: HEIGHT })
  })
  resized.observe(element)
  return {
    update(next) {
      const sameShape = shapeOf(next) === shapeOf(current)
      current = next
      if (sameShape) {
        plot.setData(dataOf(next))
        return
      }
      plot.destroy()
      plot = new uPlot(optionsOf(now, widthOf(), ink), dataOf(next), element)
    },
    destroy() {
      resized.disconnect()
      plot.destroy()
    },
  }
}
