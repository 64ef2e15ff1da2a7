// The type document (type-doc.ts), read once per page from the controller.
import { useEffect, useState } from 'preact/hooks';
import { answerOf, controllerUrl, get } from './api';
import { takeEarly } from './early';
import { typeDocOf, type OpenApiDoc, type TypeDoc } from './type-doc';

let loading: Promise<TypeDoc> | null = null;

export function loadTypeDoc(): Promise<TypeDoc> {
  const url = controllerUrl('api/doc/json');
  const early = takeEarly('doc');
  const asked = early?.then((r) => r ?? fetch(url));
  loading ??= (asked ? answerOf<OpenApiDoc>(url, asked) : get<OpenApiDoc>(url)).then((a) => {
    if (!a.ok) {
      loading = null;
      throw new Error(a.error);
    }
    return typeDocOf(a.body);
  });
  return loading;
}

const EMPTY: TypeDoc = { data: new Map(), roles: new Map(), implements: new Map(), descriptions: new Map() };

/** The type document once loaded (null until then); an unreadable document counts as empty. */
export function useTypeDoc(): TypeDoc | null {
  const [doc, setDoc] = useState<TypeDoc | null>(null);
  useEffect(() => void loadTypeDoc().then(setDoc, () => setDoc(EMPTY)), []);
  return doc;
}
