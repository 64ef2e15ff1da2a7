// Graphs from the history API (/history/timeseries): fields chosen per graph, ranges 10m to 30d,
// live append every 10 s, temperatures on the left axis and percentages/states on the right
// (other units, and temperature differences, on axes of their own), CSV export. The history may hold several controllers: each
// is named in the picker and in legends, and this one's fields are drawn by default. Without a
// history service the page says so instead of failing. A renamed block is followed
// (graph-renames.ts): its fields from before the rename stay, drawn in the same colour.
// After a temperature unit switch a field's points from before it (under the other unit's name)
// are drawn in its line, converted (graph-data.ts filledFrom). All temperatures are drawn in one
// unit (graph-fields.ts drawnIn): a field recorded in the other is converted, its legend saying so.
import { useEffect, useState } from 'preact/hooks';
import { download, post, serviceId } from './api';
import { analogUnitLabel } from './blocks.js';
import { Chart, type Plotted } from './Chart';
import { FieldPicker } from './FieldPicker';
import { align, dropBefore, filledFrom, type Columns, type Range } from './graph-data';
import {
  defaultFields,
  displayUnit,
  drawnIn,
  earlierNames,
  fieldParts,
  inTemperatureUnit,
  type FieldParts,
} from './graph-fields';
import { followRenames, lookOf, readMemory, remember } from './graph-renames';
import { Renamed } from './GraphRenamed';
import { controllerNow, live, statusUnit, useBlockNames, useStatusUnit } from './live';
import { converted } from './units';

const RANGES = { '10m': 600, '1h': 3600, '1d': 86400, '7d': 7 * 86400, '30d': 30 * 86400 } as const;
type RangeKey = keyof typeof RANGES;
const LIVE_MS = 10_000;
const STORE_KEY = 'edgeblocks.graph.fields';
const RANGE_KEY = 'edgeblocks.graph.range';
const MEMORY_KEY = 'edgeblocks.graph.blocks';

/** Units this page knows from the live blocks: an analog input's value is in its scale's unit. */
function knownUnit(p: FieldParts): string | null {
  if (p.controller !== serviceId() || p.name !== 'value') return null;
  const b = live().blocks.get(p.block);
  return b?.type === 'AnalogSensorI2c' ? analogUnitLabel(b.data.unit) : null;
}

function savedFields(): string[] {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE_KEY) ?? '[]') as unknown;
    return Array.isArray(saved) ? saved.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

/** The shortest range that holds all the data there is (a fresh controller: its last minutes). */
function fittingRange(cols: Columns): RangeKey {
  const first = cols[0][0];
  if (first === undefined) return '10m';
  const age = controllerNow() / 1000 - first;
  return (Object.keys(RANGES) as RangeKey[]).find((r) => RANGES[r] >= age) ?? '30d';
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
  // The columns with the fields they belong to: while a changed field list loads, the chart
  // keeps drawing the previous fields with their own columns.
  const [data, setData] = useState<Plotted | null>(null);
  const [error, setError] = useState('');
  const [memory, setMemory] = useState(() => readMemory(localStorage.getItem(MEMORY_KEY)));
  const blockNames = useBlockNames();

  const unit = useStatusUnit();
  useEffect(() => {
    void post<string[]>('/history/timeseries/fields', { duration: '30d' }).then(async (a) => {
      if (a.status === 404 || a.status === 0)
        return setMissing(a.status === 404 ? 'this service has no history API' : a.error);
      if (!a.ok) return setError(a.error);
      // The temperature unit the controller records now: on a page opened at #/graphs the
      // fields can come before the first state says it (and the blocks with it).
      const now = await statusUnit();
      // Blocks renamed since the fields were saved: their new names' fields are drawn too, also
      // before the history has points of them.
      const followed = followRenames(savedFields(), serviceId(), memory, live().blocks, live().blockSet);
      const known = [...new Set([...a.body, ...followed.fields])];
      setAll(known);
      setMemory(followed.memory);
      // The blocks there are, once the first state has said (it came with the unit).
      const blocks = live().loaded ? new Set(live().blocks.keys()) : undefined;
      setFields(defaultFields(known, serviceId(), followed.fields, now, blocks));
    });
  }, []);

  // The blocks the fields belong to, by nid and type in this block set, so that a rename made
  // while no graph was open is followed when one opens.
  useEffect(() => {
    if (!all) return;
    setMemory((m) => {
      const kept = remember(fields, serviceId(), m, live().blocks, live().blockSet);
      return JSON.stringify(kept) === JSON.stringify(m) ? m : kept;
    });
  }, [fields.join('\n'), blockNames, all !== null]);
  useEffect(() => localStorage.setItem(MEMORY_KEY, JSON.stringify(memory)), [memory]);

  // A block drawn renamed while the graph is open (by any path): the graph follows it. A backup
  // load is not a rename: its patch comes with another block set.
  useEffect(() => {
    if (!all) return;
    const followed = followRenames(fields, serviceId(), memory, live().blocks, live().blockSet);
    if (!followed.renamed.length) return;
    setMemory(followed.memory);
    setFields(followed.fields);
    setAll((known) => [...new Set([...(known ?? []), ...followed.fields])]);
  }, [blockNames, all !== null]);

  // The unit switched while the graph is open: this controller's temperatures go on under the
  // new unit's names (the ones drawn stop at the switch), so the graph draws those, and the
  // picker lists them before the history has them.
  useEffect(() => {
    if (!all || !unit) return;
    const now = [...new Set(fields.map((f) => inTemperatureUnit(f, serviceId(), unit)))];
    if (now.join('\n') === fields.join('\n')) return;
    setFields(now);
    setAll((known) => [...new Set([...(known ?? []), ...now])]);
    void post<string[]>('/history/timeseries/fields', { duration: '30d' }).then((a) => {
      if (a.ok) setAll([...new Set([...a.body, ...now])]);
    });
  }, [unit, all !== null]);

  useEffect(() => {
    if (!fields.length) return setData(null);
    localStorage.setItem(STORE_KEY, JSON.stringify(fields));
    let stopped = false;
    // With the fields, the names this controller's temperatures had before a unit switch: their
    // points are drawn in the fields' lines, in the unit recorded now.
    const earlier = earlierNames(fields, serviceId(), unit);
    const asked = [...new Set([...fields, ...earlier.values()])];
    const inUnit = (v: number, field: string, from: string) =>
      converted(v, fieldParts(from).unit ?? '', fieldParts(field).unit ?? '');
    // Every temperature on the one axis in one unit: a field recorded in the other (a °C field
    // ticked beside its °F twin, another controller's) is drawn converted, and says so in its legend.
    const display = displayUnit(fields, unit);
    const shown = (c: Columns): Columns => [
      c[0],
      ...fields.map((f, i) => {
        const to = drawnIn(f, display);
        const from = fieldParts(f).unit ?? '';
        return to ? c[i + 1]!.map((v) => (v === null ? null : converted(v, from, to))) : c[i + 1]!;
      }),
    ];
    let cols: Columns | null = null;
    const load = async () => {
      const last = cols?.[0].at(-1);
      const body =
        last === undefined ? { fields: asked, duration: `${RANGES[range]}s` } : { fields: asked, start: last };
      const a = await post<Range[]>('/history/timeseries/ranges', body);
      if (stopped) return;
      if (!a.ok) return setError(a.error);
      setError('');
      cols = dropBefore(align(asked, a.body, cols ?? undefined), controllerNow() / 1000 - RANGES[range]);
      let drawn = shown(filledFrom(fields, asked, cols, earlier, inUnit));
      if (!fitted) {
        setFitted(true);
        const fit = fittingRange(drawn);
        if (fit !== range) {
          cols = dropBefore(cols, controllerNow() / 1000 - RANGES[fit]);
          drawn = shown(filledFrom(fields, asked, cols, earlier, inUnit));
          setRangeState(fit);
        }
      }
      setData({ fields, cols: drawn });
    };
    void load();
    const timer = setInterval(() => void load(), LIVE_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [fields.join('\n'), range, unit]);

  const exportCsv = async () => {
    // The CSV holds the values as recorded: a temperature's column before a unit switch goes
    // beside it under its own name (in its own unit), where the history has that name.
    const earlier = [...earlierNames(fields, serviceId(), unit).values()].filter((f) => all?.includes(f));
    const csvFields = [...new Set([...fields, ...earlier])];
    const res = await fetch('/history/timeseries/csv', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: csvFields, precision: 'ISO8601', duration: `${RANGES[range]}s` }),
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
      <Renamed fields={fields} memory={memory} setFields={setFields} />
      {data && fields.length > 0 ? (
        <Chart
          plotted={data}
          seconds={RANGES[range]}
          fitData={savedRange === null}
          look={lookOf(serviceId(), memory, knownUnit, displayUnit(data.fields, unit))}
        />
      ) : (
        <p>{all.length ? 'Pick fields to plot.' : 'No history recorded yet.'}</p>
      )}
      <details open={!fields.length}>
        <summary>
          Fields ({fields.length} of {all.length})
        </summary>
        <FieldPicker all={all} own={serviceId()} fields={fields} setFields={setFields} known={knownUnit} />
      </details>
    </div>
  );
}
