// A uPlot time-series chart sized to its container and coloured from the theme's CSS variables.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
  fmt?: (v: number) => string;
  dash?: number[];
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

export function Chart({
  x,
  series,
  title,
  height = 240,
}: {
  x: number[];
  series: Series[];
  title: string;
  height?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const axis = {
      stroke: css('--muted'),
      grid: { stroke: css('--line'), width: 1 },
      ticks: { stroke: css('--line') },
    };
    const plot = new uPlot(
      {
        width: el.current.clientWidth || 600,
        height,
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: css(s.color),
            width: s.dash ? 1 : 2,
            ...(s.dash ? { dash: s.dash } : {}),
            points: { show: x.length < 60 },
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : s.fmt ? s.fmt(v) : v.toLocaleString()),
          })),
        ],
        axes: [axis, { ...axis, size: 50 }],
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
      },
      [x, ...series.map((s) => s.values)],
      el.current,
    );
    const ro = new ResizeObserver(() => {
      if (el.current) plot.setSize({ width: el.current.clientWidth, height });
    });
    ro.observe(el.current);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [x, series, height]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={el} role="img" aria-label={`${title} chart; the table below has the same numbers`} />
    </figure>
  );
}
