// Other spellings of a path that a router may take for the same route, or a guard for another:
// percent-encoded letters, other case, doubled slashes, dot segments, a trailing slash, encoded
// slashes. The guard tests send each one as raw bytes (no client normalises them first).
const enc = (c: string, upper = true) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? hex.toUpperCase() : hex.toLowerCase()}`;
};

/** Other spellings of `p` (not `p` itself). */
export function variants(p: string): string[] {
  const segs = p.split('/').slice(1);
  const out = new Set<string>();
  const join = (s: string[]) => `/${s.join('/')}`;
  segs.forEach((seg, i) => {
    if (!seg) return;
    const first = [...segs];
    first[i] = enc(seg[0]!) + seg.slice(1);
    out.add(join(first));
    const lower = [...segs];
    lower[i] = enc(seg[0]!, false) + seg.slice(1);
    out.add(join(lower));
    // Every letter of the first segment (the service id or API prefix), the middle one of the others.
    const positions =
      i === 0 ? Array.from(seg, (_c, k) => k).slice(1) : seg.length > 2 ? [Math.floor(seg.length / 2)] : [];
    for (const at of positions) {
      const middle = [...segs];
      middle[i] = seg.slice(0, at) + enc(seg[at]!) + seg.slice(at + 1);
      out.add(join(middle));
    }
    const upper = [...segs];
    upper[i] = seg.toUpperCase();
    out.add(join(upper));
  });
  out.add(join(segs.map((s) => (s ? enc(s[0]!) + s.slice(1) : s))));
  out.add(p.toUpperCase());
  out.add(join(segs.map((s) => (s ? s[0]!.toUpperCase() + s.slice(1) : s))));
  out.add(`/${p}`);
  out.add(p.replaceAll('/', '//'));
  out.add(`${p}/`);
  out.add(join([segs[0]!, '.', ...segs.slice(1)]));
  out.add(`/auth/..${p}`);
  out.add(`/auth/%2e%2e${p}`);
  out.add(`/x/..${p}`);
  out.add(`${p}?/auth/status`);
  out.add(`${p}#/auth/status`);
  out.add(`/${segs.join('%2F')}`);
  out.add(`/${segs.join('%2f')}`);
  out.delete(p);
  return [...out];
}
