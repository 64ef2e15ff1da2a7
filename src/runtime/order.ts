// Dependency order for the scheduler: inputs update before the blocks that read them, and a
// block that drives another (PID -> PWM -> actuator) updates before its target.
import { forEachLink } from '../codec/fields.js';
import type { AnyBlock } from './types.js';

export function dependencyOrder(blocks: AnyBlock[]): AnyBlock[] {
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const after = new Map<AnyBlock, Set<AnyBlock>>(blocks.map((b) => [b, new Set()]));
  const indegree = new Map<AnyBlock, number>(blocks.map((b) => [b, 0]));
  const edge = (first: AnyBlock, second: AnyBlock) => {
    if (first === second || after.get(first)!.has(second)) return;
    after.get(first)!.add(second);
    indegree.set(second, indegree.get(second)! + 1);
  };
  for (const b of blocks) {
    forEachLink(b.def.fields, b.data, (path, id, field) => {
      if (!id || field.readonly) return;
      const target = byId.get(id);
      if (!target) return;
      if (field.spec.drives) edge(b, target);
      else edge(target, b);
    });
  }
  const sorted = [...blocks].sort((a, b) => a.nid - b.nid);
  const ready = sorted.filter((b) => indegree.get(b) === 0);
  const out: AnyBlock[] = [];
  const done = new Set<AnyBlock>();
  while (out.length < sorted.length) {
    let next = ready.shift();
    if (!next) {
      // A cycle: break it at the lowest nid still waiting.
      next = sorted.find((b) => !done.has(b))!;
    }
    if (done.has(next)) continue;
    done.add(next);
    out.push(next);
    for (const succ of after.get(next)!) {
      const n = indegree.get(succ)! - 1;
      indegree.set(succ, n);
      if (n === 0 && !done.has(succ)) insertByNid(ready, succ);
    }
  }
  return out;
}

function insertByNid(list: AnyBlock[], b: AnyBlock) {
  const i = list.findIndex((x) => x.nid > b.nid);
  if (i < 0) list.push(b);
  else list.splice(i, 0, b);
}
