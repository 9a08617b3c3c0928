import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}

/**
 * A time-series line chart drawn by uPlot (about 20 KB gzipped, canvas). This module is loaded only by the views that
 * show a chart, so the first load of the console does not carry it. `days` are `YYYY-MM-DD`, UTC.
 */
export default function Chart({ title, days, series }: { title: string; days: string[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const text = getComputedStyle(el).color;
    const axis = { stroke: text, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } };
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 260,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, fill: `${s.color}22` }))],
        axes: [axis, axis],
        scales: { x: { time: true } },
        legend: { show: true },
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series]);
  return <div ref={box} className="chart" role="img" aria-label={title} />;
}
