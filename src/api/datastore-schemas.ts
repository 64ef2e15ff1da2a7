// Swagger (documentation only) schemas of the datastore API.
import { ID_RULE, MAX_FILTER_LENGTH, MAX_ID_LENGTH, MAX_NAMESPACE_LENGTH, NAMESPACE_RULE } from '../store/datastore-validate.js';

const namespace = { type: 'string', pattern: NAMESPACE_RULE, maxLength: MAX_NAMESPACE_LENGTH, description: 'May be empty; nest with ":"', example: 'edge-one' };
const id = { type: 'string', pattern: ID_RULE, minLength: 1, maxLength: MAX_ID_LENGTH, example: 'units' };

const document = {
  type: 'object',
  description: 'Any JSON object with a namespace and an id; other members are stored as given',
  required: ['namespace', 'id'],
  properties: { namespace, id },
  additionalProperties: true,
  example: { namespace: 'edge-one', id: 'units', temperature: 'degC' },
};

export const datastoreSchemas = {
  setQueryText: '`filter` is a glob (`*`, `?`, `[abc]`, `[^abc]`, `\\` escapes) on the part of the key after "namespace:" (the whole key for the empty namespace); `ids` are exact.',
  pong: { type: 'object', properties: { ping: { type: 'string', example: 'pong' } } },
  keyQuery: { type: 'object', required: ['namespace', 'id'], properties: { namespace, id } },
  setQuery: {
    type: 'object',
    required: ['namespace'],
    properties: {
      namespace,
      ids: { type: 'array', items: id, nullable: true },
      filter: { type: 'string', nullable: true, maxLength: MAX_FILTER_LENGTH, example: '*' },
    },
  },
  valueBody: { type: 'object', required: ['value'], properties: { value: document } },
  valuesBody: { type: 'object', required: ['values'], properties: { values: { type: 'array', items: document } } },
  value: { type: 'object', properties: { value: document } },
  valueOrNull: { type: 'object', properties: { value: { ...document, nullable: true } } },
  values: { type: 'object', properties: { values: { type: 'array', items: document } } },
  count: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } } },
};
