// Graphs from the history API (/history/timeseries): fields chosen per graph, ranges 1h to 30d,
// live append every 10 s, temperatures on the left axis and percentages/states on the right,
// CSV export. Without a history service the page says so instead of failing.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { download, post } from './api';
import { unitLabel } from './blocks.js';
import { fieldLabel } from './explain.js';
import { align, dropBefore, isTemperature, type Columns, type Range } from './graph-data';

const RANGES = { '10m': 600, '1h': 3600, '1d': 86400, '7d': 7 * 86400, '30d': 30 * 86400 } as const;
type RangeKey = keyof typeof RANGES;
const COLORS = ['#d94c2b', '#2b7bd9', '#e0a000', '#3aa655', '#8e44ad', '#16a3a3', '#777', '#c2185b'];
const LIVE_MS = 10_000;
const STORE_KEY = 'edgeblocks.graph.fields';
const RANGE_KEY = 'edgeblocks.graph.range';

declare global {
  interface Window {
    /** Milliseconds the last full graph draw took (read by the benchmark and tests). */
    __graphRenderMs?: number;
    __graphPoints?: number;
    /** Rows (timestamps) the graph holds now, growing with live appends. */
    __graphRows?: number;
  }
}

/** The saved choice, else every setpoint with its measured value (drawn as a pair), then sensors. */
export function defaultFields(all: string[]): string[] {
  const saved = JSON.parse(localStorage.getItem(STORE_KEY) ?? '[]') as string[];
  const kept = saved.filter((f) => all.includes(f));
  if (kept.length) return kept;
  const pairs = all
    .filter((f) => /\/setting\[deg[CF]\]$/.test(f))
    .flatMap((setting) => {
      const value = setting.replace(/\/setting\[/, '/value[');
      return all.includes(value) ? [setting, value] : [setting];
    });
  const sensors = all.filter((f) => /\/value\[deg[CF]\]$/.test(f) && !pairs.includes(f));
  return [...pairs, ...sensors].slice(0, 6);
}

const blockOf = (field: string) => field.split('/').slice(1, -1).join('/');
const fieldName = (field: string) => field.split('/').at(-1) ?? field;
/** `setting[degC]` → "Setting (°C)". */
function fieldWords(field: string): string {
  const m = /^([^[]+)(?:\[(.+)\])?$/.exec(fieldName(field));
  return m ? `${fieldLabel(m[1]!)}${m[2] ? ` (${unitLabel(m[2])})` : ''}` : fieldName(field);
}

/** The shortest range that holds all the data there is (a fresh controller: its last minutes). */
function fittingRange(cols: Columns): RangeKey {
  const first = cols[0][0];
  if (first === undefined) return '10m';
  const age = Date.now() / 1000 - first;
  return (Object.keys(RANGES) as RangeKey[]).find((r) => RANGES[r] >= age) ?? '30d';
}

/** Fields grouped by block, filtered by a search, each a checkbox. */
function FieldPicker({
  all,
  fields,
  setFields,
}: {
  all: string[];
  fields: string[];
  setFields: (f: string[]) => void;
}) {
  const [search, setSearch] = useState('');
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = all.filter((f) => words.every((w) => f.toLowerCase().includes(w)));
  const groups = new Map<string, string[]>();
  for (const f of shown) groups.set(blockOf(f), [...(groups.get(blockOf(f)) ?? []), f]);
  return (
    <div class="picker" data-testid="field-picker">
      <label>
        Search fields{' '}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          placeholder="e.g. beer setting"
        />
      </label>
      {[...groups].map(([block, list]) => (
        <fieldset class="fieldlist" data-group={block}>
          <legend>{block}</legend>
          {list.map((f) => (
            <label>
              <input
                type="checkbox"
                data-field={f}
                checked={fields.includes(f)}
                onChange={(e) =>
                  setFields((e.target as HTMLInputElement).checked ? [...fields, f] : fields.filter((x) => x !== f))
                }
              />{' '}
              {fieldWords(f)}
            </label>
          ))}
        </fieldset>
      ))}
      {!shown.length && <p class="muted">No field matches “{search}”.</p>}
    </div>
  );
}

function Chart({
  fields,
  data,
  seconds,
  fitData,
}: {
  fields: string[];
  data: Columns;
  seconds: number;
  fitData: boolean;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const key = `${fields.join('\n')}\n${seconds}`;
  useEffect(() => {
    const host = el.current!;
    const t0 = performance.now();
    // A block's fields share a colour; a setting is dashed, so the pair reads without colour too.
    const blocks = [...new Set(fields.map(blockOf))];
    const series: uPlot.Series[] = [
      {},
      ...fields.map((f) => ({
        label: `${blockOf(f)} ${fieldWords(f)}`,
        stroke: COLORS[blocks.indexOf(blockOf(f)) % COLORS.length],
        width: 1.5,
        dash: /\/setting\[/.test(f) ? [6, 4] : undefined,
        scale: isTemperature(f) ? 'temp' : 'pct',
        spanGaps: true,
      })),
    ];
    const opts: uPlot.Options = {
      width: Math.max(320, host.clientWidth),
      height: 360,
      series,
      // The whole chosen window, also while history is still short.
      // The whole chosen window; while the range was chosen for the user, no wider than the data.
      scales: {
        x: {
          time: true,
          range: (u) => [
            Math.max(Date.now() / 1000 - seconds, fitData && u.data[0].length ? u.data[0][0]! - 5 : 0),
            Date.now() / 1000,
          ],
        },
      },
      axes: [
        {},
        { scale: 'temp', label: 'temperature' },
        { scale: 'pct', side: 1, label: '% / state', grid: { show: false } },
      ],
      legend: { live: true },
      hooks: {
        draw: [
          () => {
            if (drawn) return;
            drawn = true;
            window.__graphRenderMs = performance.now() - t0;
            window.__graphPoints = data[0].length * fields.length;
          },
        ],
      },
    };
    let drawn = false;
    window.__graphRenderMs = undefined;
    plot.current = new uPlot(opts, data as uPlot.AlignedData, host);
    const onResize = () => plot.current?.setSize({ width: Math.max(320, host.clientWidth), height: 360 });
    addEventListener('resize', onResize);
    return () => {
      removeEventListener('resize', onResize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [key]);
  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData, false);
    window.__graphRows = data[0].length;
  }, [data]);
  return <div ref={el} class="chart" data-testid="chart" />;
}

export function Graphs() {
  const [all, setAll] = useState<string[] | null>(null);
  const [missing, setMissing] = useState('');
  const [fields, setFields] = useState<string[]>([]);
  const savedRange = localStorage.getItem(RANGE_KEY);
  // Until the user picks one, the range fits the data (decided after the first load).
  const [fitted, setFitted] = useState(savedRange !== null && savedRange in RANGES);
  const [range, setRangeState] = useState<RangeKey>(() =>
    savedRange && savedRange in RANGES ? (savedRange as RangeKey) : '1d',
  );
  const setRange = (r: RangeKey) => {
    localStorage.setItem(RANGE_KEY, r);
    setFitted(true);
    setRangeState(r);
  };
  const [data, setData] = useState<Columns | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    void post<string[]>('/history/timeseries/fields', { duration: '30d' }).then((a) => {
      if (a.status === 404 || a.status === 0)
        return setMissing(a.status === 404 ? 'this service has no history API' : a.error);
      if (!a.ok) return setError(a.error);
      setAll(a.body);
      setFields(defaultFields(a.body));
    });
  }, []);

  useEffect(() => {
    if (!fields.length) return setData(null);
    localStorage.setItem(STORE_KEY, JSON.stringify(fields));
    let stopped = false;
    let cols: Columns | null = null;
    const load = async () => {
      const last = cols?.[0].at(-1);
      const body = last === undefined ? { fields, duration: `${RANGES[range]}s` } : { fields, start: last };
      const a = await post<Range[]>('/history/timeseries/ranges', body);
      if (stopped) return;
      if (!a.ok) return setError(a.error);
      setError('');
      cols = dropBefore(align(fields, a.body, cols ?? undefined), Date.now() / 1000 - RANGES[range]);
      if (!fitted) {
        setFitted(true);
        const fit = fittingRange(cols);
        if (fit !== range) {
          cols = dropBefore(cols, Date.now() / 1000 - RANGES[fit]);
          setRangeState(fit);
        }
      }
      setData(cols);
    };
    void load();
    const timer = setInterval(() => void load(), LIVE_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [fields.join('\n'), range]);

  const exportCsv = async () => {
    const res = await fetch('/history/timeseries/csv', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields, precision: 'ISO8601', duration: `${RANGES[range]}s` }),
    });
    if (!res.ok) return setError(`CSV export failed (HTTP ${res.status})`);
    download(`edgeblocks-${range}-${new Date().toISOString().slice(0, 16)}.csv`, await res.blob());
  };

  if (missing)
    return (
      <p class="banner" data-testid="no-history">
        History not available: {missing}. Live values are on the Overview.
      </p>
    );
  if (!all) return <p>{error || 'Asking the history service for fields…'}</p>;
  return (
    <div class="graphs">
      <div class="toolbar">
        {(Object.keys(RANGES) as RangeKey[]).map((r) => (
          <button
            class={r === range ? 'active' : ''}
            aria-pressed={r === range}
            aria-label={`show the last ${r}`}
            onClick={() => setRange(r)}
          >
            {r}
          </button>
        ))}
        <button onClick={() => void exportCsv()} disabled={!fields.length}>
          Export CSV
        </button>
      </div>
      {error && <p class="answer bad">{error}</p>}
      {data && fields.length > 0 ? (
        <Chart fields={fields} data={data} seconds={RANGES[range]} fitData={savedRange === null} />
      ) : (
        <p>{all.length ? 'Pick fields to plot.' : 'No history recorded yet.'}</p>
      )}
      <details open={!fields.length}>
        <summary>
          Fields ({fields.length} of {all.length})
        </summary>
        <FieldPicker all={all} fields={fields} setFields={setFields} />
      </details>
    </div>
  );
}
