// One uPlot chart of history columns. The fields and their columns come as one value, so the
// plot is only ever built for data that has a column per field: a new field list waits for its
// data (the old plot stays until then) instead of drawing old columns under new series. The look
// (legend, colour, axis) is part of what builds it, so a legend never outlives what it says.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Columns } from './graph-data';
import { axisLabel, type ChartLook } from './graph-fields';

export type { ChartLook };
import { controllerNow } from './live';

const COLORS = ['#d94c2b', '#2b7bd9', '#e0a000', '#3aa655', '#8e44ad', '#16a3a3', '#777', '#c2185b'];
const HEIGHT = 360;

declare global {
  interface Window {
    /** Milliseconds the last full graph draw took (read by the benchmark and tests). */
    __graphRenderMs?: number;
    __graphPoints?: number;
    /** Rows (timestamps) the graph holds now, growing with live appends. */
    __graphRows?: number;
    /** Fields the drawn graph has (set once it drew them). */
    __graphSeries?: number;
    /** The time window (epoch seconds) the graph drew last. */
    __graphSpan?: [number, number];
    /** The fields and columns the graph holds now (read by tests). */
    __graphPlotted?: Plotted;
    /** Each y axis the graph drew last: its scale, its label, the range drawn, the fields on it (read by tests). */
    __graphAxes?: Array<{ scale: string; label: string; min: number | null; max: number | null; fields: string[] }>;
  }
}

export interface Plotted {
  fields: string[];
  /** The time column, then one column per field, in the order of `fields`. */
  cols: Columns;
}

export function Chart({
  plotted,
  seconds,
  fitData,
  look,
}: {
  plotted: Plotted;
  seconds: number;
  fitData: boolean;
  look: ChartLook;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const { fields, cols } = plotted;
  // Built again when the fields, the range or how a field is drawn changes: a block renamed back
  // keeps the fields and changes their legends and colours.
  const key = `${fields.map((f) => `${f}\u0000${look.label(f)}\u0000${look.group(f)}\u0000${look.scale(f)}`).join('\n')}\n${seconds}`;
  useEffect(() => {
    const host = el.current!;
    const t0 = performance.now();
    const groups = [...new Set(fields.map(look.group))];
    const scales = [...new Set(fields.map(look.scale))];
    const series: uPlot.Series[] = [
      {},
      ...fields.map((f) => ({
        label: look.label(f),
        stroke: COLORS[groups.indexOf(look.group(f)) % COLORS.length],
        width: 1.5,
        dash: look.dashed(f) ? [6, 4] : undefined,
        scale: look.scale(f),
        spanGaps: true,
      })),
    ];
    let drawn = false;
    const opts: uPlot.Options = {
      width: Math.max(300, host.clientWidth),
      height: HEIGHT,
      series,
      scales: {
        // The whole chosen window; while the range was chosen for the user, no wider than the data.
        // It ends at the controller's now: history is stamped on its clock, not the browser's.
        x: {
          time: true,
          range: (u) => [
            Math.max(controllerNow() / 1000 - seconds, fitData && u.data[0].length ? u.data[0][0]! - 5 : 0),
            controllerNow() / 1000,
          ],
        },
      },
      axes: [
        {},
        // Temperatures on the left; every other scale on the right, labelled with its unit.
        ...scales.map((s) => ({
          scale: s,
          label: axisLabel(s),
          side: s === 'temp' || (s === 'pct' && !scales.includes('temp')) ? 3 : 1,
          grid: { show: s === scales[0] },
        })),
      ],
      legend: { live: true },
      hooks: {
        draw: [
          (u) => {
            window.__graphSpan = [u.scales.x!.min!, u.scales.x!.max!];
            window.__graphAxes = scales.map((s) => ({
              scale: s,
              label: axisLabel(s),
              min: u.scales[s]?.min ?? null,
              max: u.scales[s]?.max ?? null,
              fields: fields.filter((f) => look.scale(f) === s),
            }));
            if (drawn) return;
            drawn = true;
            window.__graphRenderMs = performance.now() - t0;
            window.__graphPoints = cols[0].length * fields.length;
            window.__graphSeries = fields.length;
          },
        ],
      },
    };
    window.__graphRenderMs = undefined;
    plot.current = new uPlot(opts, cols as uPlot.AlignedData, host);
    const onResize = () => plot.current?.setSize({ width: Math.max(300, host.clientWidth), height: HEIGHT });
    addEventListener('resize', onResize);
    return () => {
      removeEventListener('resize', onResize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [key]);
  useEffect(() => {
    plot.current?.setData(cols as uPlot.AlignedData, false);
    window.__graphRows = cols[0].length;
    window.__graphPlotted = plotted;
  }, [cols]);
  return <div ref={el} class="chart" data-testid="chart" />;
}
