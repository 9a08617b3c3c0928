import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: (number | null)[];
  /** A colour, or the name of a CSS custom property holding one (`--chart-1`), so the chart follows the theme. */
  color: string;
  /** Bars instead of a line; two bar series stand side by side. */
  bars?: boolean;
}

/** The palette of styles.css, in the order charts use it; light and dark values live there. */
export const PALETTE = ['--chart-1', '--chart-2', '--chart-3', '--chart-4'] as const;

const DAY = 86_400;

/** Reads a colour, resolving `--name` against the document's current theme. */
function resolve(color: string): string {
  if (!color.startsWith('--')) return color;
  return getComputedStyle(document.documentElement).getPropertyValue(color).trim() || '#888888';
}

const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

/** Whether the system's colour scheme is dark; a change redraws the chart with the other theme's colours. */
function useDarkScheme(): boolean {
  const [dark, setDark] = useState(darkQuery?.matches ?? false);
  useEffect(() => {
    if (!darkQuery) return;
    const change = () => setDark(darkQuery.matches);
    darkQuery.addEventListener('change', change);
    return () => darkQuery.removeEventListener('change', change);
  }, []);
  return dark;
}

/** A category name short enough for an axis tick; the legend and the tables beside charts show it whole. */
const short = (label: string) => (label.length > 14 ? `${label.slice(0, 13)}…` : label);

/**
 * A chart drawn by uPlot (about 20 KB gzipped, canvas), lines or bars. This module is loaded only by the views that
 * show a chart, so the first load of the console does not carry it. The x values are `days` (`YYYY-MM-DD`, UTC) or
 * `times` (epoch seconds, e.g. hour starts), for which uPlot picks day or hour ticks from their span, or `labels`:
 * categories (campaigns, domains), one slot each.
 */
export default function Chart({
  title,
  days,
  times,
  labels,
  series,
  height = 260,
}: {
  title: string;
  days?: string[];
  times?: number[];
  labels?: string[];
  series: Series[];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useDarkScheme();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = labels ? labels.map((_, i) => i) : (times ?? (days ?? []).map((d) => Date.parse(`${d}T00:00:00Z`) / 1000));
    const text = getComputedStyle(el).color;
    const grid = resolve('--chart-grid');
    const axis = { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } };
    const barSeries = series.filter((s) => s.bars);
    const step = labels ? 1 : xs.length > 1 ? xs[1]! - xs[0]! : DAY;
    const lo = xs[0] ?? 0;
    const hi = xs.at(-1) ?? 0;
    const pad = barSeries.length > 0 || lo === hi ? step / 2 : 0;
    const xAxis = labels
      ? {
          ...axis,
          splits: () => xs,
          values: (_u: uPlot, splits: number[]) => splits.map((i) => short(labels[i] ?? '')),
          rotate: labels.length > 6 ? -35 : 0,
          size: labels.length > 6 ? 90 : 40,
          grid: { show: false },
        }
      : axis;
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height,
        series: [
          labels ? { label: 'Item', value: (_u: uPlot, i: number | null) => (i === null ? '—' : (labels[i] ?? '')) } : {},
          ...series.map((s) => {
            const color = resolve(s.color);
            if (!s.bars) return { label: s.label, stroke: color, width: 2, fill: `${color}22`, points: { show: xs.length < 40 } };
            // Two bar series share each slot: the first ends at the tick, the second starts there.
            const place = barSeries.length === 2 ? (barSeries.indexOf(s) === 0 ? -1 : 1) : 0;
            return {
              label: s.label,
              stroke: color,
              fill: `${color}cc`,
              width: 1,
              points: { show: false },
              paths: uPlot.paths.bars!({ size: [barSeries.length === 2 ? 0.4 : 0.7, 40], align: place }),
            };
          }),
        ],
        axes: [xAxis, { ...axis, size: 56 }],
        // The x range is the data's own (uPlot's automatic range stretched a lone point over years), with room for
        // the first and last bar, or around a lone point.
        scales: {
          x: { time: !labels, range: () => [lo - pad, hi + pad] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
        },
        // The series' names only: values under the cursor ('Time: --' until then) read as unfinished, and the tables
        // beside the charts give exact figures.
        legend: { show: true, live: false },
        // No drag-to-zoom: the range is fixed to the data, and a table beside each chart gives exact figures.
        cursor: { points: { show: barSeries.length === 0 }, drag: { x: false, y: false } },
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, times, labels, series, height, dark]);
  return <div ref={box} className="chart" role="img" aria-label={title} />;
}
