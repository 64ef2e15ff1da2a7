// The type document (type-doc.ts), read once per page from the controller.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, get } from './api';
import { takeEarly } from './early';
import { typeDocOf, type OpenApiDoc, type TypeDoc } from './type-doc';

let loading: Promise<TypeDoc> | null = null;
/** The document once read: a page rendered after that has it from its first render. */
let loaded: TypeDoc | null = null;

async function fetchTypeDoc(): Promise<TypeDoc> {
  // index.html's copy when it got one; otherwise (or after an error, for its words) ask again.
  const early = await takeEarly('doc')?.catch(() => null);
  if (early?.status === 200 && early.body) return typeDocOf(early.body as OpenApiDoc);
  const a = await get<OpenApiDoc>(controllerUrl('api/doc/json'));
  if (!a.ok) throw new Error(a.error);
  return typeDocOf(a.body);
}

export function loadTypeDoc(): Promise<TypeDoc> {
  loading ??= fetchTypeDoc().then(
    (doc) => (loaded = doc),
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

const EMPTY: TypeDoc = { data: new Map(), roles: new Map(), implements: new Map(), descriptions: new Map() };

/** The type document once loaded (null until then); an unreadable document counts as empty. */
export function useTypeDoc(): TypeDoc | null {
  const [doc, setDoc] = useState<TypeDoc | null>(loaded);
  useEffect(() => {
    if (!loaded) void loadTypeDoc().then(setDoc, () => setDoc(EMPTY));
  }, []);
  return doc;
}
