// The dashboard's charts, drawn with uPlot (small, canvas, no dependencies): decisions over time by verdict,
// and bar charts of the top rules and of the calls most often asked about, each with its list beneath for
// reading the names (a bar chart's axis has no room for a command line).

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { Count, Stats } from './api.ts';

export const VERDICT_COLOURS = { allow: '#2e8b57', deny: '#c0392b', ask: '#d4a017' } as const;

/** A uPlot chart in a div, rebuilt when its data changes and resized with its box. */
function Plot(props: { opts: (width: number) => uPlot.Options; data: uPlot.AlignedData; testid: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(200, el.clientWidth);
    const plot = new uPlot(props.opts(width), props.data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: plot.height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [props.data]);
  return <div class="plot" ref={box} data-testid={props.testid} />;
}

export function OverTime(props: { stats: Stats }) {
  const b = props.stats.buckets;
  const data: uPlot.AlignedData = [
    b.map((x) => Date.parse(x.start) / 1000),
    b.map((x) => x.allow),
    b.map((x) => x.deny),
    b.map((x) => x.ask),
  ];
  const series = (label: keyof typeof VERDICT_COLOURS): uPlot.Series => ({
    label,
    stroke: VERDICT_COLOURS[label],
    fill: `${VERDICT_COLOURS[label]}22`,
    width: 2,
    points: { show: false },
  });
  return (
    <Plot
      testid="chart-over-time"
      data={data}
      opts={(width) => ({
        width,
        height: 180,
        series: [{}, series('allow'), series('deny'), series('ask')],
        axes: [{}, { size: 40 }],
        scales: { x: { time: true } },
        legend: { show: true },
      })}
    />
  );
}

function short(s: string, n = 14): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function TopBars(props: { counts: Count[]; colour: string; testid: string; empty: string }) {
  const c = props.counts;
  if (c.length === 0) return <p class="muted" data-testid={props.testid}>{props.empty}</p>;
  const data: uPlot.AlignedData = [c.map((_, i) => i), c.map((x) => x.count)];
  const bars = uPlot.paths.bars!({ size: [0.7, 60] });
  return (
    <div>
      <Plot
        testid={props.testid}
        data={data}
        opts={(width) => ({
          width,
          height: 150,
          legend: { show: false },
          scales: { x: { time: false, range: [-0.5, c.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          series: [{}, { label: 'count', stroke: props.colour, fill: `${props.colour}99`, paths: bars, points: { show: false } }],
          axes: [
            { splits: () => c.map((_, i) => i), values: (_u, splits) => splits.map((i) => short(c[i]?.key ?? '')), gap: 4 },
            { size: 36 },
          ],
        })}
      />
      <ol class="toplist">
        {c.map((x) => (
          <li key={x.key}>
            <span class="count">{x.count}</span> <code>{x.key}</code>
          </li>
        ))}
      </ol>
    </div>
  );
}
