// The shapes of blocks as the API sends them: types only, so code that reads blocks (and its
// tests under Node) needs nothing of the browser.

export interface Quantity {
  __objtype?: 'Quantity';
  __bloxtype?: 'Quantity';
  unit: string;
  value: number | null;
  readonly?: boolean;
}

export interface Link {
  __objtype?: 'Link';
  __bloxtype?: 'Link';
  type: string;
  id: string | null;
  readonly?: boolean;
}

export interface Block {
  id: string;
  nid?: number;
  type: string;
  serviceId?: string;
  data: Record<string, unknown>;
  meta?: Record<string, unknown>;
}
